import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import type { BalcaoConfig } from './config.js';
import { bucketName, cognitoEndpoint } from './names.js';
import { ack, ackWildcardAction, ackWildcardResource } from './nag.js';

export interface WebStackProps extends StackProps {
  config: BalcaoConfig;
}

/**
 * Hosting of the console: a private bucket behind CloudFront (Origin Access Control), with the SPA
 * fallback (unknown paths answer index.html) and /config.json never cached. The files themselves are
 * deployed by WebContentStack, which comes after the API: the API needs this distribution's origin
 * for CORS, and config.json needs the API's URLs.
 */
export class WebStack extends Stack {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** `https://<console host>` – CORS origin of the API and the media bucket, WEB_ORIGIN of the functions. */
  readonly origin: string;

  constructor(scope: Construct, id: string, props: WebStackProps) {
    super(scope, id, props);
    const { config } = props;

    const logs = new Bucket(this, 'CdnLogs', {
      bucketName: bucketName(config.prefix, 'weblogs'),
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      // CloudFront standard logs are delivered with an ACL.
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      enforceSSL: true,
      lifecycleRules: [{ id: 'expire-cdn-logs', expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    ack(logs, 'S1', 'This bucket is the destination of the CloudFront access logs; logging it into itself would loop.');

    this.bucket = new Bucket(this, 'Site', {
      bucketName: bucketName(config.prefix, 'web'),
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      serverAccessLogsBucket: logs,
      serverAccessLogsPrefix: 's3/',
      // Only build output lives here; every deploy rewrites it.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const custom = config.webDomain && config.webCertificateArn;
    const origin = S3BucketOrigin.withOriginAccessControl(this.bucket);
    this.distribution = new Distribution(this, 'Cdn', {
      comment: `Balcão console (${config.stage})`,
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_ALL,
      defaultBehavior: {
        origin,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
        compress: true,
      },
      additionalBehaviors: {
        // Runtime settings must change as soon as a stack is redeployed.
        '/config.json': {
          origin,
          viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
        },
      },
      // Client-side routes (/tickets/42, /users…) are not objects: serve the app and let it route.
      errorResponses: [
        { httpStatus: 403, responseHttpStatus: 200, responsePagePath: '/index.html', ttl: Duration.seconds(0) },
        { httpStatus: 404, responseHttpStatus: 200, responsePagePath: '/index.html', ttl: Duration.seconds(0) },
      ],
      enableLogging: true,
      logBucket: logs,
      logFilePrefix: 'cdn/',
      ...(custom
        ? {
            domainNames: [config.webDomain!],
            certificate: Certificate.fromCertificateArn(this, 'Certificate', config.webCertificateArn!),
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
    });
    ack(this.distribution, 'CFR1', 'The console serves companies wherever their agents are; no geographic restriction is wanted.');
    ack(this.distribution, 'CFR2', 'Static files only; the API has its own throttling. A WAF web ACL (us-east-1) can be attached per stage when needed.');
    if (!custom) {
      ack(this.distribution, 'CFR4', 'Without webDomain the default *.cloudfront.net certificate is used, whose TLS policy cannot be chosen; with webDomain TLSv1.2_2021 is enforced.');
    }

    this.origin = custom ? `https://${config.webDomain}` : `https://${this.distribution.distributionDomainName}`;
    new CfnOutput(this, 'WebUrl', { value: this.origin, description: 'The console' });
    if (custom) {
      new CfnOutput(this, 'CdnDomain', {
        value: this.distribution.distributionDomainName,
        description: `Point ${config.webDomain} (CNAME/alias) here`,
      });
    }
  }
}

export interface WebContentStackProps extends StackProps {
  config: BalcaoConfig;
  web: WebStack;
  apiUrl: string;
  wsUrl: string;
  userPoolId: string;
  userPoolClientId: string;
}

/**
 * The console's files and its runtime settings: `web/dist` plus a generated `config.json` with the same
 * shape the local stack writes (`{ apiUrl, wsUrl, cognito: { region, endpoint, userPoolId,
 * userPoolClientId } }`), then a CloudFront invalidation. With `-c webDist=skip` only config.json is
 * deployed (and nothing else in the bucket is touched).
 */
export class WebContentStack extends Stack {
  /** The content of config.json (with tokens until deployment). */
  readonly runtimeConfig: {
    apiUrl: string;
    wsUrl: string;
    cognito: { region: string; endpoint: string; userPoolId: string; userPoolClientId: string };
  };

  constructor(scope: Construct, id: string, props: WebContentStackProps) {
    super(scope, id, props);
    const { config, web } = props;

    const runtimeConfig = (this.runtimeConfig = {
      apiUrl: props.apiUrl,
      wsUrl: props.wsUrl,
      cognito: {
        region: this.region,
        endpoint: cognitoEndpoint(this),
        userPoolId: props.userPoolId,
        userPoolClientId: props.userPoolClientId,
      },
    });
    // The bucket is named deterministically, so it is referenced by name (no export on the bucket).
    const site = Bucket.fromBucketName(this, 'Site', bucketName(config.prefix, 'web'));
    const sources = [Source.jsonData('config.json', runtimeConfig)];
    if (config.webDist) sources.unshift(Source.asset(config.webDist));

    new BucketDeployment(this, 'Deploy', {
      destinationBucket: site,
      sources,
      // Old hashed assets go away with a full build; a config-only deploy must not delete the app.
      prune: Boolean(config.webDist),
      distribution: web.distribution,
      distributionPaths: ['/*'],
      memoryLimit: 512,
    });

    // The deployment's Lambda is CDK's own custom resource: its role and runtime are not ours to shape.
    const reason = 'CDK BucketDeployment custom resource (copies the build into the site bucket).';
    ack(this, 'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]', reason);
    ack(this, 'L1', `${reason} Its runtime is chosen by aws-cdk-lib.`);
    for (const action of ['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*']) {
      ackWildcardAction(this, action, `${reason} The S3 actions are CDK's grants on the asset and site buckets.`);
    }
    ackWildcardResource(this, site.arnForObjects('*'), `${reason} It writes every file of the build.`);
    // CDK's bootstrap bucket holding the zipped build and config.json (default qualifier unless overridden).
    const qualifier = this.node.tryGetContext('@aws-cdk/core:bootstrapQualifier') ?? 'hnb659fds';
    ackWildcardResource(
      this,
      `arn:${this.partition}:s3:::cdk-${qualifier}-assets-${this.account}-${this.region}/*`,
      `${reason} It reads the uploaded build from the CDK assets bucket.`,
    );
    ack(this, 'IAM5[Resource::*]', `${reason} CDK grants cloudfront:CreateInvalidation/GetInvalidation on *.`);
  }
}
