import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AccountRecovery, FeaturePlan, Mfa, UserPool, UserPoolClient, UserPoolEmail } from 'aws-cdk-lib/aws-cognito';
import type { Construct } from 'constructs';
import type { BalcaoConfig } from './config.js';
import { ack } from './nag.js';

export interface AuthStackProps extends StackProps {
  config: BalcaoConfig;
}

/**
 * The Cognito user pool of DESIGN §4: e-mail is the user name, users are created by the API (no self
 * sign-up), the password policy is the spec's (8+ with upper, lower and digit), recovery by e-mail
 * code (the console's /forgetpsw). The app client has no secret (a browser SPA) and allows
 * USER_PASSWORD_AUTH plus refresh.
 */
export class AuthStack extends Stack {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;

  constructor(scope: Construct, id: string, props: AuthStackProps) {
    super(scope, id, props);
    const { config } = props;

    this.userPool = new UserPool(this, 'Users', {
      userPoolName: `${config.prefix}-users`,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      selfSignUpEnabled: false,
      // The API confirms e-mails itself (AdminCreateUser with email_verified), and users change their
      // e-mail from the console (AdminUpdateUserAttributes), so it must stay mutable.
      standardAttributes: { email: { required: true, mutable: true } },
      autoVerify: { email: true },
      passwordPolicy: {
        minLength: 8,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: false,
        tempPasswordValidity: Duration.days(7),
      },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      mfa: Mfa.OFF,
      featurePlan: FeaturePlan.ESSENTIALS,
      // Cognito's own sender (low daily quota); switch to SES with a verified domain before launch.
      email: UserPoolEmail.withCognito(),
      deletionProtection: config.retainData,
      removalPolicy: config.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    ack(this.userPool, 'COG1', 'The spec fixes the password policy at 8+ characters with upper, lower and digit (no symbol); the console validates the same rule.');
    ack(this.userPool, 'COG2', 'The product specification has no MFA step in sign-in; single-session enforcement and the table-side user record protect accounts.');
    ack(this.userPool, 'COG8', 'Plus tier threat protection is a paid add-on not required by the spec; it can be enabled per stage without code changes.');

    this.client = this.userPool.addClient('Console', {
      userPoolClientName: `${config.prefix}-console`,
      generateSecret: false,
      authFlows: { userPassword: true, userSrp: false, adminUserPassword: false, custom: false },
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
      enableTokenRevocation: true,
      // The spec answers 'Email não encontrado' on the forgot-password page, which needs Cognito to
      // report unknown users (functions/src/core/cognito.ts maps UserNotFoundException).
      preventUserExistenceErrors: false,
    });

    new CfnOutput(this, 'UserPoolId', { value: this.userPool.userPoolId });
    new CfnOutput(this, 'UserPoolClientId', { value: this.client.userPoolClientId });
  }

  /** Issuer of the pool's tokens, what the JWT authorizer and functions/src/core/jwt.ts expect. */
  get issuer(): string {
    // Built rather than GetAtt ProviderURL, whose value has no scheme.
    return `https://cognito-idp.${this.region}.${this.urlSuffix}/${this.userPool.userPoolId}`;
  }
}
