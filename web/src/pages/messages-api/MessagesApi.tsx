import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Card, Flex, Heading, Text, TextField } from '@aws-amplify/ui-react';
import { ApiError } from '../../api/http';
import { errorText } from '../../api/errors';
import { externalApi } from '../../api/externalApi';
import { usePlanGate } from '../../auth/usePlanGate';
import { toast } from '../../ui/toast';
import './messages-api.css';

type Outcome = { ok: boolean; text: string } | null;

/**
 * The external messages API's documentation page (spec 002 §2, §5, §7): the two ways to send, the
 * token and number rules, and a test form for each. Only for plans with `useExternalApi`; anyone
 * else gets the spec's toast and the way home.
 */
export default function MessagesApi() {
  const { t } = useTranslation();
  const allowed = usePlanGate('useExternalApi');
  if (!allowed) return null;
  const url = externalApi.url();
  return (
    <Flex direction="column" gap="1.25rem" className="page messages-api">
      <Heading level={3}>{t('messagesApi.title')}</Heading>

      <Card variation="outlined">
        <Heading level={5}>{t('messagesApi.methodsTitle')}</Heading>
        <ol>
          <li>{t('messagesApi.methodText')}</li>
          <li>{t('messagesApi.methodMedia')}</li>
        </ol>
        <Heading level={5}>{t('messagesApi.instructionsTitle')}</Heading>
        <ul>
          <li>{t('messagesApi.tokenInstruction')}</li>
          <li>
            {t('messagesApi.numberInstruction')}
            <ul>
              <li>{t('messagesApi.numberCountry')}</li>
              <li>{t('messagesApi.numberArea')}</li>
              <li>{t('messagesApi.numberNumber')}</li>
            </ul>
          </li>
        </ul>
      </Card>

      <Card variation="outlined">
        <Heading level={5}>{t('messagesApi.textTitle')}</Heading>
        <Text>{t('messagesApi.textIntro')}</Text>
        <Endpoint url={url} contentType="application/json" />
        <Text fontWeight="bold">{t('messagesApi.bodyLabel')}</Text>
        <pre className="api-code">{`{\n  "number": "5511999999999",\n  "body": "Mensagem"\n}`}</pre>
        <TextForm />
      </Card>

      <Card variation="outlined">
        <Heading level={5}>{t('messagesApi.mediaTitle')}</Heading>
        <Text>{t('messagesApi.mediaIntro')}</Text>
        <Endpoint url={url} contentType="multipart/form-data" />
        <Text fontWeight="bold">{t('messagesApi.formDataLabel')}</Text>
        <pre className="api-code">{`number: 5511999999999\nbody: ${t('messagesApi.fileNameField')}\nmedias: ${t('messagesApi.fileField')}`}</pre>
        <MediaForm />
      </Card>
    </Flex>
  );
}

function Endpoint({ url, contentType }: { url: string; contentType: string }) {
  const { t } = useTranslation();
  return (
    <dl className="api-endpoint">
      <dt>{t('messagesApi.endpoint')}</dt>
      <dd>
        <code>POST {url}</code>
      </dd>
      <dt>{t('messagesApi.headers')}</dt>
      <dd>
        <code>Authorization: Bearer {'{token}'}</code>
        <br />
        <code>Content-Type: {contentType}</code>
      </dd>
    </dl>
  );
}

/** The answer of a test send, as the page shows it: the spec's success text, else the refusal's message. */
function useTestSend() {
  const { t } = useTranslation();
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  const run = async (send: () => Promise<unknown>) => {
    setBusy(true);
    setOutcome(null);
    try {
      await send();
      const text = t('messagesApi.sent');
      setOutcome({ ok: true, text });
      toast.success(text);
    } catch (e) {
      // A refused connection token is no lost session: the global text would say "sign in again".
      const text = e instanceof ApiError && e.status === 401 ? t('messagesApi.invalidToken') : errorText(e);
      setOutcome({ ok: false, text });
      toast.error(text);
    } finally {
      setBusy(false);
    }
  };
  return { outcome, busy, run };
}

/** Required fields: blank ones are named under themselves and nothing is sent. */
function useRequired<K extends string>(fields: Record<K, string | File | null>) {
  const { t } = useTranslation();
  const [tried, setTried] = useState(false);
  const missing = (k: K) => {
    const v = fields[k];
    return v === null || (typeof v === 'string' && !v.trim());
  };
  const error = (k: K) => (tried && missing(k) ? { hasError: true, errorMessage: t('validation.obrigatorio') } : {});
  const check = () => {
    setTried(true);
    return (Object.keys(fields) as K[]).every((k) => !missing(k));
  };
  return { error, check };
}

function TextForm() {
  const { t } = useTranslation();
  const [token, setToken] = useState('');
  const [number, setNumber] = useState('');
  const [body, setBody] = useState('');
  const required = useRequired({ token, number, body });
  const { outcome, busy, run } = useTestSend();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (required.check()) void run(() => externalApi.sendText(token.trim(), number.trim(), body));
  };
  return (
    <TestForm title={t('messagesApi.testText')} onSubmit={submit} busy={busy} outcome={outcome} testId="api-text-form">
      <TextField label={t('messagesApi.token')} isRequired value={token} onChange={(e) => setToken(e.target.value)} autoComplete="off" {...required.error('token')} />
      <TextField label={t('messagesApi.number')} isRequired inputMode="numeric" placeholder="5511999999999" value={number} onChange={(e) => setNumber(e.target.value)} {...required.error('number')} />
      <TextField label={t('messagesApi.body')} isRequired value={body} onChange={(e) => setBody(e.target.value)} {...required.error('body')} />
    </TestForm>
  );
}

function MediaForm() {
  const { t } = useTranslation();
  const [token, setToken] = useState('');
  const [number, setNumber] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const required = useRequired({ token, number, file });
  const { outcome, busy, run } = useTestSend();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (required.check() && file) void run(() => externalApi.sendMedia(token.trim(), number.trim(), file));
  };
  const fileError = required.error('file');
  return (
    <TestForm title={t('messagesApi.testMedia')} onSubmit={submit} busy={busy} outcome={outcome} testId="api-media-form">
      <TextField label={t('messagesApi.token')} isRequired value={token} onChange={(e) => setToken(e.target.value)} autoComplete="off" {...required.error('token')} />
      <TextField label={t('messagesApi.number')} isRequired inputMode="numeric" placeholder="5511999999999" value={number} onChange={(e) => setNumber(e.target.value)} {...required.error('number')} />
      <label className="api-file">
        <span>{t('messagesApi.file')} *</span>
        <input type="file" aria-invalid={!!fileError.hasError} onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        {fileError.hasError && <span className="api-file-error">{fileError.errorMessage}</span>}
      </label>
    </TestForm>
  );
}

function TestForm({ title, onSubmit, busy, outcome, testId, children }: { title: string; onSubmit: (e: FormEvent) => void; busy: boolean; outcome: Outcome; testId: string; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <form onSubmit={onSubmit} noValidate className="api-test-form" data-testid={testId}>
      <Heading level={6}>{title}</Heading>
      <div className="form-grid">{children}</div>
      <Flex alignItems="center" gap="1rem" wrap="wrap">
        <Button type="submit" variation="primary" isLoading={busy} loadingText={t('messagesApi.sending')}>
          {t('messagesApi.send')}
        </Button>
        {outcome && (
          <Text role="status" className={outcome.ok ? 'api-outcome ok' : 'api-outcome error'}>
            {outcome.text}
          </Text>
        )}
      </Flex>
    </form>
  );
}
