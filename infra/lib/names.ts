import { Aws, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Buckets get deterministic names (stage + account + region) so that other stacks refer to them by
 * name and ARN built from pseudo parameters instead of cross-stack exports: no export locks a bucket,
 * and the wildcard object ARNs in policies are the same string everywhere (stable cdk-nag
 * acknowledgments).
 */
export const bucketName = (prefix: string, purpose: 'media' | 'web' | 'logs' | 'weblogs') =>
  `${prefix}-${purpose}-${Aws.ACCOUNT_ID}-${Aws.REGION}`;

export const bucketArn = (prefix: string, purpose: 'media' | 'web' | 'logs' | 'weblogs') =>
  `arn:${Aws.PARTITION}:s3:::${bucketName(prefix, purpose)}`;

export const bucketObjectsArn = (prefix: string, purpose: 'media' | 'web' | 'logs' | 'weblogs') =>
  `${bucketArn(prefix, purpose)}/*`;

/** `https://cognito-idp.{region}.amazonaws.com/` as the console's config.json expects it. */
export const cognitoEndpoint = (scope: IConstruct) => `https://cognito-idp.${Stack.of(scope).region}.${Aws.URL_SUFFIX}/`;
