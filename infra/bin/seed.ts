/**
 * Seeds a deployed stage with its first super user ("Plano 1", "Empresa 1", default settings,
 * three queues), exactly like the local stack's first start. Idempotent. Needs the stage's names in
 * the environment (see README "Deploying to AWS") and AWS credentials allowed to write them.
 */
import { seedLocal } from '@balcao/functions/tools';

const email = process.env.BALCAO_ADMIN_EMAIL;
const password = process.env.BALCAO_ADMIN_PASSWORD;
if (!email || !password) {
  console.error('Set BALCAO_ADMIN_EMAIL and BALCAO_ADMIN_PASSWORD (8+ characters with upper, lower and digit).');
  process.exit(2);
}
const result = await seedLocal({ adminEmail: email, adminPassword: password });
console.log(`Super user ${email} ready in company ${result.companyId}.`);
