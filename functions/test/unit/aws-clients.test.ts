import { describe, expect, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';

describe('DynamoDB client', () => {
  it('runs without the SDK logger middleware (it filtered every output for a discarding logger)', async () => {
    process.env.TABLE_NAME ??= 'unit';
    process.env.AWS_REGION ??= 'us-east-1';
    const { dynamo } = await import('../../src/core/aws.js');
    const client = dynamo();
    expect(client.middlewareStack.identify().join('\n')).not.toMatch(/loggerMiddleware/);
    // What a command actually runs: the client's stack and the command's own.
    const command = new QueryCommand({ TableName: 't', KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'x' } });
    const stack = client.middlewareStack.concat(command.middlewareStack);
    expect(stack.identify().join('\n')).not.toMatch(/loggerMiddleware/);
  });
});
