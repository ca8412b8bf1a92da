import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';

/**
 * Secrets of a company's outside services (AI keys, voice keys, a Dialogflow service account) are
 * stored sealed (issue 19 §2, decision 51): AES-256-GCM under a data key. In AWS the data key is
 * KMS's (envelope encryption: `GenerateDataKey` per secret, the encrypted data key kept beside the
 * ciphertext, `Decrypt` cached per data key); on one machine it is a key file of the stack's data
 * directory. The text form says which: `v1.kms.<key>.<iv>.<tag>.<data>` or `v1.local.<iv>.<tag>.<data>`.
 */
export interface SecretBox {
  /** `context` names where the secret belongs (`secretContext`): it opens only there. */
  seal(plain: string, context: string): Promise<string>;
  open(sealed: string, context: string): Promise<string>;
}

/** Binds a sealed secret to its company, record and field (GCM's additional data; KMS's encryption context). */
export const secretContext = (companyId: number, kind: 'integration' | 'prompt', id: number, field: string) => `c${companyId}/${kind}/${id}/${field}`;

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const unb64 = (s: string) => Buffer.from(s, 'base64url');

function encrypt(key: Uint8Array, plain: string, context: string) {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [b64(iv), b64(cipher.getAuthTag()), b64(data)];
}

function decrypt(key: Uint8Array, iv: string, tag: string, data: string, context: string) {
  const decipher = createDecipheriv('aes-256-gcm', key, unb64(iv));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(unb64(tag));
  return Buffer.concat([decipher.update(unb64(data)), decipher.final()]).toString('utf8');
}

/** A box over one 32-byte key (the local stack's key file, and the unit tests'). */
export function localSecretBox(key: Uint8Array): SecretBox {
  if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
  return {
    seal: async (plain, context) => ['v1', 'local', ...encrypt(key, plain, context)].join('.'),
    async open(sealed, context) {
      const [v, kind, iv, tag, data] = sealed.split('.');
      if (v !== 'v1' || kind !== 'local' || !iv || !tag || data === undefined) throw new Error('not a locally sealed secret');
      return decrypt(key, iv, tag, data, context);
    },
  };
}

/** Envelope encryption under a KMS key; opened data keys are kept in memory (a few per company). */
export function kmsSecretBox(keyId: string, kms: KMSClient): SecretBox {
  const dataKeys = new Map<string, Promise<Uint8Array>>();
  return {
    async seal(plain, context) {
      const out = await kms.send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: { balcao: context } }));
      if (!out.Plaintext || !out.CiphertextBlob) throw new Error('KMS returned no data key');
      const sealed = ['v1', 'kms', b64(out.CiphertextBlob), ...encrypt(out.Plaintext, plain, context)].join('.');
      out.Plaintext.fill(0);
      return sealed;
    },
    async open(sealed, context) {
      const [v, kind, wrapped, iv, tag, data] = sealed.split('.');
      if (v !== 'v1' || kind !== 'kms' || !wrapped || !iv || !tag || data === undefined) throw new Error('not a KMS-sealed secret');
      let key = dataKeys.get(wrapped);
      if (!key) {
        if (dataKeys.size > 500) dataKeys.clear();
        key = kms.send(new DecryptCommand({ CiphertextBlob: unb64(wrapped), KeyId: keyId, EncryptionContext: { balcao: context } })).then((o) => {
          if (!o.Plaintext) throw new Error('KMS returned no plaintext');
          return o.Plaintext;
        });
        key.catch(() => dataKeys.delete(wrapped));
        dataKeys.set(wrapped, key);
      }
      return decrypt(await key, iv, tag, data, context);
    },
  };
}
