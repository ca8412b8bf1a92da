import { AppError } from '@balcao/shared';
import { createRouter } from '../../core/http.js';
import { getSetting, listSettings, updateSetting } from '../../services/settings.js';
import { billingSettingView, saveBillingSetting } from '../../services/billing.js';

/**
 * Company settings. `asaas` is the platform's payment provider setting (decision 61): the super
 * user's alone, kept sealed in the platform's billing item and answered masked.
 */
export const handler = createRouter('settings', {
  'GET /settings': async (req) => {
    const list = await listSettings(req.identity.companyId);
    if (!req.identity.isSuper) return list.filter((s) => s.key !== 'asaas');
    const asaas = await billingSettingView();
    return list.map((s) => (s.key === 'asaas' ? { ...asaas, companyId: req.identity.companyId } : s));
  },
  'GET /settings/{key}': async (req) => {
    if (req.params.key === 'asaas') {
      if (!req.identity.isSuper) throw new AppError(404, 'ERR_NO_SETTING_FOUND');
      return billingSettingView();
    }
    return getSetting(req.identity.companyId, req.params.key);
  },
  'PUT /settings/{key}': async (req) => {
    if (req.params.key === 'asaas') {
      if (!req.identity.isSuper) throw new AppError(403, 'ERR_NO_PERMISSION');
      return saveBillingSetting(req.body);
    }
    return updateSetting(req.identity.companyId, req.params.key, req.body);
  },
});
