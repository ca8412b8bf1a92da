/**
 * Everything a function learns about where it runs comes from the environment (DESIGN §1): the
 * same code runs in Lambda and on the local stack, only endpoints and names differ.
 */
const opt = (name: string) => {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
};
const req = (name: string) => {
  const v = opt(name);
  if (!v) throw new Error(`Missing environment variable ${name}`);
  return v;
};

export const env = {
  get region() {
    return opt('AWS_REGION') ?? 'us-east-1';
  },
  get tableName() {
    return req('TABLE_NAME');
  },
  get dynamoEndpoint() {
    return opt('DYNAMODB_ENDPOINT');
  },
  get sqsEndpoint() {
    return opt('SQS_ENDPOINT');
  },
  get s3Endpoint() {
    return opt('S3_ENDPOINT');
  },
  get mediaBucket() {
    return req('MEDIA_BUCKET');
  },
  get realtimeQueueUrl() {
    return req('REALTIME_QUEUE_URL');
  },
  get userPoolId() {
    return req('USER_POOL_ID');
  },
  get userPoolClientId() {
    return req('USER_POOL_CLIENT_ID');
  },
  get cognitoEndpoint() {
    return opt('COGNITO_ENDPOINT');
  },
  /** Issuer of the tokens; locally cognito-local's `http://127.0.0.1:PORT/<poolId>`. */
  get jwtIssuer() {
    return opt('JWT_ISSUER') ?? `https://cognito-idp.${this.region}.amazonaws.com/${this.userPoolId}`;
  },
  get jwksUri() {
    return opt('JWKS_URI') ?? `${this.jwtIssuer}/.well-known/jwks.json`;
  },
  /** @connections endpoint: https://{apiId}.execute-api.{region}.amazonaws.com/{stage} */
  get wsCallbackUrl() {
    return req('WS_CALLBACK_URL');
  },
  get webOrigin() {
    return opt('WEB_ORIGIN') ?? '*';
  },
  /** KMS key that seals the companies' outside-service secrets (AWS; core/secrets.ts). */
  get secretsKmsKeyId() {
    return opt('SECRETS_KMS_KEY_ID');
  },
  /** The one-machine stack's 32-byte secrets key, base64 (its data directory's key file). */
  get secretsLocalKey() {
    return opt('SECRETS_LOCAL_KEY');
  },
  /**
   * Outside services may answer from private addresses (loopback…): only the tests' fakes; never on
   * a deployment, where tenant admins would reach the platform's own neighbours.
   */
  get outsideAllowPrivate() {
    return opt('OUTSIDE_ALLOW_PRIVATE') === '1';
  },
  /** Google's OAuth token endpoint (a service account's own `token_uri` is not trusted: it is a tenant's text). */
  get googleTokenUrl() {
    return opt('GOOGLE_TOKEN_URL') ?? 'https://oauth2.googleapis.com/token';
  },
  /** Dialogflow's API (tests point it at a local fake; server-behaviour §9). */
  get dialogflowApiUrl() {
    return opt('DIALOGFLOW_API_URL') ?? 'https://dialogflow.googleapis.com';
  },
  /** Azure Speech's text-to-speech endpoint; `{region}` is the prompt's voice region. */
  get azureTtsUrl() {
    return opt('AZURE_TTS_URL') ?? 'https://{region}.tts.speech.microsoft.com';
  },
  /** Asaas' API (issue 22 §2; tests point it at a local fake speaking its shapes). */
  get asaasApiUrl() {
    return opt('ASAAS_API_URL') ?? 'https://api.asaas.com/v3';
  },
  /**
   * The local payment sandbox (the stack's sandbox server, `/payments`): set only on one machine,
   * where it is the default provider; with it the token its pay button sends to the webhook.
   */
  get paymentsSandboxUrl() {
    return opt('PAYMENTS_SANDBOX_URL');
  },
  get paymentsSandboxToken() {
    return opt('PAYMENTS_SANDBOX_TOKEN');
  },
  /** EventBridge Scheduler's group for the one-time timers (AWS; core/timers.ts). */
  get timerGroup() {
    return opt('TIMER_GROUP');
  },
  /** The role EventBridge Scheduler assumes to send a timer's job to its queue. */
  get timerRoleArn() {
    return opt('TIMER_ROLE_ARN');
  },
  /** The one-machine stack keeps its timers in the process (the sweeper catches any lost to a restart). */
  get localTimers() {
    return opt('LOCAL_TIMERS') === '1';
  },
  get logLevel() {
    return opt('LOG_LEVEL') ?? 'info';
  },
};
