import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { S3Client } from '@aws-sdk/client-s3';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { env } from './env.js';

/** Clients are created once per process; local endpoints come from the environment. */
let ddb: DynamoDBDocumentClient | undefined;
let sqs: SQSClient | undefined;
let s3: S3Client | undefined;
let cognito: CognitoIdentityProviderClient | undefined;

export function dynamo(): DynamoDBDocumentClient {
  ddb ??= DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: env.region, endpoint: env.dynamoEndpoint, maxAttempts: 5 }),
    { marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false } },
  );
  return ddb;
}

export function sqsClient(): SQSClient {
  sqs ??= new SQSClient({ region: env.region, endpoint: env.sqsEndpoint });
  return sqs;
}

export function s3Client(): S3Client {
  s3 ??= new S3Client({ region: env.region, endpoint: env.s3Endpoint, forcePathStyle: !!env.s3Endpoint });
  return s3;
}

export function cognitoClient(): CognitoIdentityProviderClient {
  cognito ??= new CognitoIdentityProviderClient({ region: env.region, endpoint: env.cognitoEndpoint });
  return cognito;
}
