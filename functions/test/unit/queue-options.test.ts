import { describe, expect, it } from 'vitest';
import { AppError, MSG, QUEUE_OPTION_DEPTH_MAX, QUEUE_OPTION_WIDTH_MAX } from '@balcao/shared';
import { memoryWorld, run } from '../fakes/world.js';

/**
 * Issue 18 §1 and §3 on in-memory ports: the queue options routes' rules (siblings' numbers, the
 * depth and width limits, subtree deletes, another company's ids), the queue's new fields, and the
 * company schedule's validation.
 */
const { createQueue, updateQueue, deleteQueue, toApiQueue, getQueueItem } = await import('../../src/services/queues.js');
const { createQueueOption, updateQueueOption, deleteQueueOption, listQueueOptions, getQueueOption } = await import('../../src/services/queue-options.js');
const { updateCompanySchedules, companyDetails } = await import('../../src/services/companies.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;
let colours = 0;
const queue = (w: World, name: string, extra: Record<string, unknown> = {}) =>
  run(w, () => createQueue(w.companyId, { name, color: `#10${String(++colours).padStart(4, '0')}`, greetingMessage: 'Olá', ...extra }));
const add = (w: World, queueId: number, fields: Record<string, unknown>) => run(w, () => createQueueOption(w.companyId, { queueId, title: `Opção ${fields.option}`, ...fields }));

/** The error a call answers: status, code and fields. */
async function refusal(p: Promise<unknown>) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  const e = err as AppError;
  return { status: e.status, code: e.code, fields: e.details?.fields ?? (e as { fields?: unknown }).fields };
}

describe('queue options (issue 18 §1, §3)', () => {
  it('lists a level in number order, with how many options each has under it; -1 is the root', async () => {
    const w = await memoryWorld();
    const q = await queue(w, 'Vendas');
    const b = await add(w, q.id, { option: '2', title: 'Boletos' });
    const a = await add(w, q.id, { option: '1', title: 'Atendimento', message: 'Escolha' });
    await add(w, q.id, { option: '1', parentId: a.id, title: 'Filho' });
    await add(w, q.id, { option: '10', title: 'Dez' });
    const root = await run(w, () => listQueueOptions(w.companyId, { queueId: String(q.id), parentId: '-1' }));
    expect(root.map((o) => [o.option, o.title, o.children])).toEqual([
      ['1', 'Atendimento', 1],
      ['2', 'Boletos', 0],
      ['10', 'Dez', 0],
    ]);
    const children = await run(w, () => listQueueOptions(w.companyId, { queueId: q.id, parentId: a.id }));
    expect(children).toEqual([expect.objectContaining({ parentId: a.id, title: 'Filho', option: '1', fieldName: null, isValidationField: false, transferToQueueId: null })]);
    expect(await run(w, () => getQueueOption(w.companyId, b.id))).toMatchObject({ id: b.id, queueId: q.id, title: 'Boletos' });
  });

  it('refuses a number taken among siblings (409), bad fields (400 naming them) and a missing queue or parent', async () => {
    const w = await memoryWorld();
    const q = await queue(w, 'Vendas');
    const a = await add(w, q.id, { option: '1' });
    expect(await refusal(add(w, q.id, { option: '1' }))).toMatchObject({ status: 409, fields: [{ field: 'option', message: MSG.optionTaken }] });
    // The same number under another parent is fine.
    await add(w, q.id, { option: '1', parentId: a.id });
    expect(await refusal(add(w, q.id, { option: 'um' }))).toMatchObject({ status: 400, fields: [{ field: 'option' }] });
    expect(await refusal(run(w, () => createQueueOption(w.companyId, { queueId: q.id, option: '3', title: '' })))).toMatchObject({ status: 400, fields: [{ field: 'title', message: MSG.required }, { field: 'title' }] });
    expect(await refusal(add(w, q.id, { option: '4', parentId: 999_999 }))).toMatchObject({ status: 400, fields: [{ field: 'parentId' }] });
    expect(await refusal(add(w, 999_999, { option: '1' }))).toMatchObject({ status: 404, code: 'ERR_NO_QUEUE_FOUND' });
    expect(await refusal(add(w, q.id, { option: '5', transferToQueueId: 999_999 }))).toMatchObject({ status: 400, fields: [{ field: 'transferToQueueId' }] });
    // Renumbering onto a sibling's number is refused too; onto a free one moves the marker.
    const b = await add(w, q.id, { option: '2' });
    expect(await refusal(run(w, () => updateQueueOption(w.companyId, b.id, { option: '1' })))).toMatchObject({ status: 409, fields: [{ field: 'option' }] });
    await run(w, () => updateQueueOption(w.companyId, b.id, { option: '7', title: 'Sete' }));
    await add(w, q.id, { option: '2' });
  });

  it(`a tree is at most ${QUEUE_OPTION_DEPTH_MAX} levels deep and ${QUEUE_OPTION_WIDTH_MAX} options wide`, async () => {
    const w = await memoryWorld();
    const q = await queue(w, 'Fundo');
    let parent: number | undefined;
    for (let level = 1; level <= QUEUE_OPTION_DEPTH_MAX; level++) parent = (await add(w, q.id, { option: '1', parentId: parent })).id;
    expect(await refusal(add(w, q.id, { option: '1', parentId: parent }))).toMatchObject({ status: 400, fields: [{ field: 'parentId', message: MSG.optionTooDeep }] });

    const wide = await queue(w, 'Largo');
    for (let i = 1; i <= QUEUE_OPTION_WIDTH_MAX; i++) await add(w, wide.id, { option: String(i) });
    expect(await refusal(add(w, wide.id, { option: '51' }))).toMatchObject({ status: 400, fields: [{ field: 'option', message: MSG.optionTooWide }] });
    // A delete frees a place.
    const first = (await run(w, () => listQueueOptions(w.companyId, { queueId: wide.id, parentId: -1 })))[0]!;
    await run(w, () => deleteQueueOption(w.companyId, first.id));
    await add(w, wide.id, { option: '51' });
  });

  it('deleting an option deletes its subtree (numbers free again); deleting the queue deletes its tree', async () => {
    const w = await memoryWorld();
    const q = await queue(w, 'Vendas');
    const a = await add(w, q.id, { option: '1' });
    const a1 = await add(w, q.id, { option: '1', parentId: a.id });
    await add(w, q.id, { option: '1', parentId: a1.id });
    const b = await add(w, q.id, { option: '2' });
    await run(w, () => deleteQueueOption(w.companyId, a.id));
    const left = w.ports.table.all().filter((i) => String(i.PK).includes('#QOPT#'));
    expect(left.filter((i) => i.entity === 'queueOption').map((i) => i.id)).toEqual([b.id]);
    expect(await refusal(run(w, () => getQueueOption(w.companyId, a1.id)))).toMatchObject({ status: 404, code: 'ERR_NO_QUEUE_OPTION_FOUND' });
    await add(w, q.id, { option: '1' });

    await run(w, () => deleteQueue(w.companyId, q.id));
    expect(w.ports.table.all().filter((i) => String(i.PK).includes('#QOPT#') || String(i.SK).startsWith('QOPT#'))).toEqual([]);
    // A second delete of an option already gone: 404, and the counts stay right.
    const r = await queue(w, 'Recontagem');
    const one = await add(w, r.id, { option: '1' });
    await run(w, () => deleteQueueOption(w.companyId, one.id));
    expect(await refusal(run(w, () => deleteQueueOption(w.companyId, one.id)))).toMatchObject({ status: 404 });
    expect(w.ports.table.all().find((i) => String(i.PK).includes('#QOPT#') && String(i.SK).startsWith('W#'))).toMatchObject({ children: 0 });
    // An option of a queue deleted meanwhile is refused.
    await run(w, () => deleteQueue(w.companyId, r.id));
    expect(await refusal(add(w, r.id, { option: '2' }))).toMatchObject({ status: 404 });
  });

  it("another company's queue and options answer 404 and change nothing", async () => {
    const w = await memoryWorld();
    const q = await queue(w, 'Vendas');
    const o = await add(w, q.id, { option: '1' });
    const other = await memoryWorld();
    // The second world has its own table: write the same ids into it through the first company's.
    const { createCompany } = await import('../../src/services/companies.js');
    const { company } = await run(w, () => createCompany({ name: 'Outra', email: 'outra@example.com', planId: w.plan.id }));
    void other;
    expect(await refusal(run(w, () => listQueueOptions(company.id, { queueId: q.id, parentId: -1 })))).toMatchObject({ status: 404 });
    expect(await refusal(run(w, () => createQueueOption(company.id, { queueId: q.id, option: '2', title: 'Intrusa' })))).toMatchObject({ status: 404 });
    expect(await refusal(run(w, () => updateQueueOption(company.id, o.id, { title: 'Mudada' })))).toMatchObject({ status: 404 });
    expect(await refusal(run(w, () => deleteQueueOption(company.id, o.id)))).toMatchObject({ status: 404 });
    expect(await run(w, () => getQueueOption(w.companyId, o.id))).toMatchObject({ title: 'Opção 1' });
  });
});

describe('queue fields and schedules (issue 18 §1)', () => {
  it('a new queue has the default week and type TEXT; FORM targets must be queues of the company; INTEGRATION waits for integrations', async () => {
    const w = await memoryWorld();
    const q = await queue(w, 'Vendas');
    expect(q).toMatchObject({ type: 'TEXT', nextQueueId: null, nextQueueInvalidFormId: null });
    expect(q.schedules.map((s) => `${s.weekdayEn} ${s.startTime}-${s.endTime}`)).toEqual([
      'monday 08:00-18:00',
      'tuesday 08:00-18:00',
      'wednesday 08:00-18:00',
      'thursday 08:00-18:00',
      'friday 08:00-18:00',
      'saturday 08:00-12:00',
      'sunday 00:00-00:00',
    ]);
    expect(await refusal(run(w, () => updateQueue(w.companyId, q.id, { type: 'FORM', nextQueueId: 999_999 })))).toMatchObject({ status: 400, fields: [{ field: 'nextQueueId' }] });
    expect(await refusal(run(w, () => updateQueue(w.companyId, q.id, { type: 'INTEGRATION' })))).toMatchObject({ status: 400, fields: [{ field: 'integrationId', message: MSG.integrationRequired }] });
    expect(await refusal(run(w, () => updateQueue(w.companyId, q.id, { type: 'INTEGRATION', integrationId: 999_999 })))).toMatchObject({ status: 400, fields: [{ field: 'integrationId', message: 'ERR_NOT_FOUND' }] });
    const form = await queue(w, 'Cadastro', { type: 'FORM', nextQueueId: q.id });
    expect(form).toMatchObject({ type: 'FORM', nextQueueId: q.id });
    // A queue stored before issue 18 answers the defaults.
    const item = await run(w, () => getQueueItem(w.companyId, q.id));
    const { type: _t, schedules: _s, ...old } = item;
    expect(toApiQueue(old as never)).toMatchObject({ type: 'TEXT', schedules: expect.arrayContaining([expect.objectContaining({ weekdayEn: 'monday' })]) });
  });

  it('a schedule with a malformed time, an end before its start, an unknown or repeated weekday is a 400 naming the entry; nothing changes', async () => {
    const w = await memoryWorld();
    const me = { companyId: w.companyId, isSuper: false };
    const put = (schedules: unknown) => run(w, () => updateCompanySchedules(me, w.companyId, { schedules }));
    const before = (await run(w, () => companyDetails(w.companyId))).schedules;
    expect(await refusal(put([{ weekdayEn: 'monday', startTime: '25:00', endTime: '18:00' }]))).toMatchObject({ status: 400, fields: [{ field: 'schedules.0.startTime', message: MSG.invalidTime }] });
    expect(await refusal(put([{ weekdayEn: 'monday', startTime: '08:00', endTime: '18:00' }, { weekdayEn: 'tuesday', startTime: '18:00', endTime: '08:00' }]))).toMatchObject({
      fields: [{ field: 'schedules.1.endTime', message: MSG.endBeforeStart }],
    });
    expect(await refusal(put([{ weekdayEn: 'funday', startTime: '08:00', endTime: '18:00' }]))).toMatchObject({ fields: [{ field: 'schedules.0.weekdayEn', message: MSG.invalidWeekday }] });
    expect(await refusal(put([{ weekdayEn: 'friday', startTime: '08:00', endTime: '18:00' }, { weekdayEn: 'friday', startTime: '09:00', endTime: '10:00' }]))).toMatchObject({
      fields: [{ field: 'schedules.1.weekdayEn', message: MSG.repeatedWeekday }],
    });
    expect(await refusal(put('segunda'))).toMatchObject({ status: 400, fields: [{ field: 'schedules' }] });
    expect((await run(w, () => companyDetails(w.companyId))).schedules).toEqual(before);

    // Valid: the four-digit mask is accepted, names follow the weekday, closed days are 00:00-00:00.
    const saved = await put([{ weekdayEn: 'saturday', startTime: '0900', endTime: '1300' }, { weekdayEn: 'sunday', startTime: '00:00', endTime: '00:00' }]);
    expect(saved.schedules).toEqual([
      { weekday: 'Sábado', weekdayEn: 'saturday', startTime: '09:00', endTime: '13:00' },
      { weekday: 'Domingo', weekdayEn: 'sunday', startTime: '00:00', endTime: '00:00' },
    ]);
    // Another company's id: 404 for an admin, allowed for the super user.
    expect(await refusal(run(w, () => updateCompanySchedules(me, w.companyId + 1, { schedules: [] })))).toMatchObject({ status: 404 });
  });
});
