import { describe, expect, it } from 'vitest';
import { memoryAgent, memoryWorld, refusal, run, SAMPLE_FILES } from '../fakes/world.js';

/**
 * Internal chat (issue 21 §2; spec 002 §3-§7; decision 57) on in-memory ports: the dialog's rules,
 * one-to-one and group chats, membership (404 for anyone else), owner-only edits and deletes,
 * unread counts written with the messages (exact under concurrent sends, cleared by a read),
 * message pages, files checked by their bytes, and events only to the members.
 */
const s = await import('../../src/services/chats.js');
const { authorizeRoute } = await import('../../src/core/identity.js');
const { routes } = await import('../../src/routes.js');

const PNG = SAMPLE_FILES.png;

async function team() {
  const w = await memoryWorld();
  const ana = await memoryAgent(w, 'Ana');
  const bia = await memoryAgent(w, 'Bia');
  const caio = await memoryAgent(w, 'Caio');
  return { w, ana, bia, caio };
}

const unreadsOf = (chat: { users: { userId: number; unreads: number }[] }) => Object.fromEntries(chat.users.map((u) => [u.userId, u.unreads]));

describe('internal chat', () => {
  it('the dialog rules: a title and at least one other user (the spec alerts), users of the company only', async () => {
    const { w, ana, bia } = await team();
    expect(await refusal(run(w, () => s.createChat(ana, { title: '  ', users: [bia.userId] })))).toMatchObject({
      status: 400,
      fields: [{ field: 'title', message: 'Por favor, preencha o título da conversa.' }],
    });
    expect(await refusal(run(w, () => s.createChat(ana, { title: 'Oi', users: [] })))).toMatchObject({
      status: 400,
      fields: [{ field: 'users', message: 'Por favor, selecione pelo menos um usuário.' }],
    });
    // Only oneself is not a chat.
    expect(await refusal(run(w, () => s.createChat(ana, { title: 'Oi', users: [ana.userId] })))).toMatchObject({ status: 400, fields: [{ field: 'users' }] });
    expect(await refusal(run(w, () => s.createChat(ana, { title: 'Oi', users: [9999] })))).toMatchObject({ status: 400, code: 'ERR_NO_USER_FOUND' });
    expect(await refusal(run(w, () => s.createChat(ana, { title: 'Oi', users: [bia.userId, 9999], isGroup: false })))).toMatchObject({ status: 400, code: 'ERR_CHAT_ONE_TO_ONE' });
    expect(await run(w, () => s.listChats(ana, {}))).toMatchObject({ records: [], count: 0 });
  });

  it('one-to-one and group chats list for their members only, latest activity first, with events to members', async () => {
    const { w, ana, bia, caio } = await team();
    // The picker's shape ({id, name}) is taken too.
    const pair = await run(w, () => s.createChat(ana, { title: 'Ana e Bia', users: [{ id: bia.userId, name: 'Bia' }] }));
    expect(pair).toMatchObject({ title: 'Ana e Bia', isGroup: false, ownerId: ana.userId, lastMessage: '' });
    expect(pair.users.map((u) => [u.userId, u.unreads, u.user.name])).toEqual([
      [ana.userId, 0, 'Ana'],
      [bia.userId, 0, 'Bia'],
    ]);
    expect(w.ports.published.at(-1)?.audience).toEqual([
      { kind: 'user', userId: ana.userId },
      { kind: 'user', userId: bia.userId },
    ]);
    w.ports.time += 1000;
    const group = await run(w, () => s.createChat(bia, { title: 'Equipe', users: [ana.userId, caio.userId] }));
    expect(group.isGroup).toBe(true);
    expect((await run(w, () => s.listChats(ana, {}))).records.map((c) => c.id)).toEqual([group.id, pair.id]);
    expect((await run(w, () => s.listChats(caio, {}))).records.map((c) => c.id)).toEqual([group.id]);
    w.ports.time += 1000;
    await run(w, () => s.sendChatMessage(ana, pair.id, { message: 'oi' }, []));
    expect((await run(w, () => s.listChats(ana, {}))).records.map((c) => c.id)).toEqual([pair.id, group.id]);
    // Caio is not a member of the pair: nothing of it exists for him.
    expect(await refusal(run(w, () => s.listChatMessages(caio, pair.id, {})))).toMatchObject({ status: 404 });
    expect(await refusal(run(w, () => s.sendChatMessage(caio, pair.id, { message: 'x' }, [])))).toMatchObject({ status: 404 });
    expect(await refusal(run(w, () => s.markChatRead(caio, pair.id, {})))).toMatchObject({ status: 404 });
    expect(await refusal(run(w, () => s.createChatUpload(caio, pair.id, { fileName: 'a.png', contentType: 'image/png', size: 10 })))).toMatchObject({ status: 404 });
    expect(await refusal(run(w, () => s.updateChat(caio, pair.id, { title: 'x' })))).toMatchObject({ status: 404 });
    expect(await refusal(run(w, () => s.deleteChat(caio, pair.id)))).toMatchObject({ status: 404 });
  });

  it('only the owner edits or deletes (403 with a clear error); members added and removed; a pair stays two', async () => {
    const { w, ana, bia, caio } = await team();
    const group = await run(w, () => s.createChat(ana, { title: 'Equipe', users: [bia.userId] , isGroup: true }));
    expect(await refusal(run(w, () => s.updateChat(bia, group.id, { title: 'Minha' })))).toMatchObject({ status: 403, code: 'ERR_CHAT_OWNER_ONLY' });
    expect(await refusal(run(w, () => s.deleteChat(bia, group.id)))).toMatchObject({ status: 403, code: 'ERR_CHAT_OWNER_ONLY' });
    await run(w, () => s.sendChatMessage(ana, group.id, { message: 'um' }, []));
    const grown = await run(w, () => s.updateChat(ana, group.id, { title: 'Equipe toda', users: [bia.userId, caio.userId] }));
    expect(grown.title).toBe('Equipe toda');
    // Bia's count survives the edit; Caio starts at 0.
    expect(unreadsOf(grown)).toEqual({ [ana.userId]: 0, [bia.userId]: 1, [caio.userId]: 0 });
    expect((await run(w, () => s.listChats(caio, {}))).records.map((c) => c.id)).toEqual([group.id]);
    w.ports.forgetRecords();
    await run(w, () => s.updateChat(ana, group.id, { users: [caio.userId] }));
    expect((await run(w, () => s.listChats(bia, {}))).records).toEqual([]);
    expect(await refusal(run(w, () => s.listChatMessages(bia, group.id, {})))).toMatchObject({ status: 404 });
    expect(w.ports.events(`company-${w.companyId}-chat`).map((e) => e.action)).toEqual(['update', 'delete']);
    expect(w.ports.published.at(-1)?.audience).toEqual([{ kind: 'user', userId: bia.userId }]);

    const pair = await run(w, () => s.createChat(ana, { title: 'Par', users: [bia.userId] }));
    expect(await refusal(run(w, () => s.updateChat(ana, pair.id, { users: [bia.userId, caio.userId] })))).toMatchObject({ status: 400, code: 'ERR_CHAT_ONE_TO_ONE' });
    await run(w, () => s.sendChatMessage(bia, pair.id, { message: 'oi' }, []));
    await run(w, () => s.deleteChat(ana, pair.id));
    expect((await run(w, () => s.listChats(bia, {}))).records).toEqual([]);
    // The chat, its messages and every member's pointer are gone.
    const pad = String(pair.id).padStart(10, '0');
    expect(w.ports.table.all().filter((i) => String(i.PK).endsWith(`#CHAT#${pad}`) || String(i.SK) === `CH#${pad}`)).toEqual([]);
  });

  it('unread counts are written with the messages, exact under concurrent sends, and cleared by a read', async () => {
    const { w, ana, bia, caio } = await team();
    const group = await run(w, () => s.createChat(ana, { title: 'Equipe', users: [bia.userId, caio.userId] }));
    // 12 sends racing from three users: every one lands, numbered densely, counted exactly.
    const senders = [ana, bia, caio];
    await Promise.all(Array.from({ length: 12 }, (_, i) => run(w, () => s.sendChatMessage(senders[i % 3], group.id, { message: `m${i}` }, []))));
    const page = await run(w, () => s.listChatMessages(ana, group.id, {}));
    expect(page.records.map((m) => m.id)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    const chat = (await run(w, () => s.listChats(ana, {}))).records[0];
    // Each member's count: the messages after their own last send that others sent.
    const counts = unreadsOf(chat);
    const expected: Record<number, number> = {};
    for (const u of senders) {
      const lastOwn = Math.max(0, ...page.records.filter((m) => m.senderId === u.userId).map((m) => m.id));
      expected[u.userId] = page.records.filter((m) => m.id > lastOwn && m.senderId !== u.userId).length;
    }
    expect(counts).toEqual(expected);
    expect(chat.lastMessage).toBe(page.records.at(-1)!.message);
    expect((await run(w, () => s.listChats(bia, {}))).unreadChats).toBe(expected[bia.userId] > 0 ? 1 : 0);

    // Another user's counter is not one's to clear.
    expect(await refusal(run(w, () => s.markChatRead(bia, group.id, { userId: caio.userId })))).toMatchObject({ status: 403 });
    await run(w, () => s.sendChatMessage(ana, group.id, { message: 'mais' }, []));
    const read = await run(w, () => s.markChatRead(bia, group.id, { userId: bia.userId }));
    expect(unreadsOf(read)[bia.userId]).toBe(0);
    expect(unreadsOf(read)[caio.userId]).toBeGreaterThan(0);
    expect((await run(w, () => s.listChats(bia, {}))).unreadChats).toBe(0);
  });

  it('a send that read the chat before an edit of its members is written over the edited chat: a removed member is neither counted nor told', async () => {
    const { w, ana, bia, caio } = await team();
    const group = await run(w, () => s.createChat(ana, { title: 'Equipe', users: [bia.userId, caio.userId] }));
    const table = w.ports.table;
    const send = table.send;
    let edited = false;
    // The owner's edit (Caio out) lands between the send's read of the chat and its transaction,
    // within the same millisecond (the in-memory clock stands still).
    table.send = (async (command: { constructor: { name: string } }) => {
      if (!edited && command.constructor.name === 'TransactWriteCommand' && JSON.stringify(command).includes('lastSeq = :prev')) {
        edited = true;
        await s.updateChat(ana, group.id, { users: [bia.userId] });
      }
      return send(command as never);
    }) as typeof send;
    w.ports.forgetRecords();
    const [sent] = await run(w, () => s.sendChatMessage(bia, group.id, { message: 'depois da saída' }, []));
    table.send = send;
    expect(edited).toBe(true);
    const told = w.ports.published.filter((p) => (p.data as { action?: string }).action === 'new-message');
    expect(told.map((p) => p.audience)).toEqual([
      [
        { kind: 'user', userId: ana.userId },
        { kind: 'user', userId: bia.userId },
      ],
    ]);
    const stored = table.all().find((i) => i.entity === 'chat' && i.id === group.id) as { memberIds: number[]; unreads: Record<string, number> };
    expect(stored.memberIds).toEqual([ana.userId, bia.userId]);
    expect(stored.unreads).toEqual({ [ana.userId]: 1, [bia.userId]: 0 });
    expect(sent.id).toBe(1);
  });

  it('a group of 50 at most: replacing all 49 others in one edit is one transaction; sends count every member', async () => {
    const { w, ana } = await team();
    const people: Awaited<ReturnType<typeof memoryAgent>>[] = [];
    for (let i = 0; i < 98; i++) people.push(await memoryAgent(w, `Pessoa ${i}`));
    const ids = people.map((p) => p.userId);
    expect(await refusal(run(w, () => s.createChat(ana, { title: 'Todos', users: ids.slice(0, 50) })))).toMatchObject({ status: 400, fields: [{ field: 'users' }] });
    const group = await run(w, () => s.createChat(ana, { title: 'Todos', users: ids.slice(0, 49) }));
    await run(w, () => s.sendChatMessage(ana, group.id, { message: 'oi' }, []));
    const swapped = await run(w, () => s.updateChat(ana, group.id, { users: ids.slice(49) }));
    expect(swapped.users.map((u) => u.userId)).toEqual([ana.userId, ...ids.slice(49)]);
    await run(w, () => s.sendChatMessage(people[49], group.id, { message: 'cheguei' }, []));
    const counts = unreadsOf((await run(w, () => s.listChats(ana, {}))).records[0]);
    expect(Object.values(counts).filter((n) => n === 1)).toHaveLength(49);
    expect(counts[people[49].userId]).toBe(0);
    expect((await run(w, () => s.listChats(people[0], {}))).records).toEqual([]);
  });

  it('messages page newest first by pageNumber (records, hasMore); text is stored as sent', async () => {
    const { w, ana, bia } = await team();
    const pair = await run(w, () => s.createChat(ana, { title: 'Par', users: [bia.userId] }));
    for (let i = 1; i <= 25; i++) await run(w, () => s.sendChatMessage(i % 2 ? ana : bia, pair.id, { message: `<b>m${i}</b>` }, []));
    const first = await run(w, () => s.listChatMessages(bia, pair.id, {}));
    expect(first).toMatchObject({ count: 25, hasMore: true });
    expect(first.records.map((m) => m.message)).toEqual(Array.from({ length: 20 }, (_, i) => `<b>m${i + 6}</b>`));
    expect(first.records[0]).toMatchObject({ chatId: pair.id, sender: { id: bia.userId, name: 'Bia' }, mediaUrl: null, mediaType: null });
    const second = await run(w, () => s.listChatMessages(bia, pair.id, { pageNumber: '2' }));
    expect(second).toMatchObject({ hasMore: false });
    expect(second.records.map((m) => m.id)).toEqual([1, 2, 3, 4, 5]);
    expect((await run(w, () => s.listChatMessages(bia, pair.id, { pageNumber: '3' }))).records).toEqual([]);
    expect(await refusal(run(w, () => s.listChatMessages(bia, pair.id, { pageNumber: 'x' })))).toMatchObject({ status: 400, fields: [{ field: 'pageNumber' }] });
    expect(await refusal(run(w, () => s.sendChatMessage(ana, pair.id, { message: '   ' }, [])))).toMatchObject({ status: 400, fields: [{ field: 'message', message: 'Required' }] });
    expect(await refusal(run(w, () => s.sendChatMessage(ana, pair.id, { message: 'x'.repeat(4097) }, [])))).toMatchObject({ status: 400, fields: [{ field: 'message' }] });
  });

  it('files: checked by their bytes and size before anything is stored, kept under the chat, removed with it', async () => {
    const { w, ana, bia } = await team();
    const pair = await run(w, () => s.createChat(ana, { title: 'Par', users: [bia.userId] }));
    const before = w.ports.objects.size;
    const fake = { field: 'medias', fileName: 'foto.png', mimeType: 'image/png', data: Buffer.from('not a png at all, just text bytes') };
    expect(await refusal(run(w, () => s.sendChatMessage(ana, pair.id, { body: 'veja' }, [fake])))).toMatchObject({ status: 400, fields: [{ field: 'medias.0' }] });
    const exe = { field: 'medias', fileName: 'x.html', mimeType: 'text/html', data: Buffer.from('<script>') };
    expect(await refusal(run(w, () => s.sendChatMessage(ana, pair.id, {}, [exe])))).toMatchObject({ status: 400 });
    const eleven = Array.from({ length: 11 }, (_, i) => ({ field: 'medias', fileName: `f${i}.png`, mimeType: 'image/png', data: PNG }));
    expect(await refusal(run(w, () => s.sendChatMessage(ana, pair.id, {}, eleven)))).toMatchObject({ status: 400, fields: [{ field: 'medias' }] });
    expect(w.ports.objects.size).toBe(before);
    const png = { field: 'medias', fileName: 'foto.png', mimeType: 'image/png', data: PNG };
    const pdf = { field: 'medias', fileName: 'nota.pdf', mimeType: 'application/pdf', data: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(100, 0x20)]) };
    const sent = await run(w, () => s.sendChatMessage(ana, pair.id, { body: 'veja' }, [png, pdf]));
    expect(sent.map((m) => [m.message, m.mediaType, m.mediaName])).toEqual([
      ['veja', 'image', 'foto.png'],
      ['', 'other', 'nota.pdf'],
    ]);
    expect(sent[0].mediaUrl).toBeTruthy();
    const keys = [...w.ports.objects.keys()].filter((k) => k.startsWith(`c/${w.companyId}/chats/${pair.id}/`));
    expect(keys).toHaveLength(2);
    expect(unreadsOf((await run(w, () => s.listChats(bia, {}))).records[0])[bia.userId]).toBe(2);
    // An upload key of another company is not a file of this send.
    expect(await refusal(run(w, () => s.sendChatMessage(ana, pair.id, { message: 'x', medias: [{ key: `tmp/uploads/999/${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}/a.png`, name: 'a.png' }] }, [])))).toMatchObject({
      status: 400,
      fields: [{ field: 'medias.0.key' }],
    });
    await run(w, () => s.deleteChat(ana, pair.id));
    expect([...w.ports.objects.keys()].filter((k) => k.startsWith(`c/${w.companyId}/chats/${pair.id}/`))).toEqual([]);
  });

  it('a deleted user leaves their chats: a group they owned passes on, a pair goes, the others keep their counts', async () => {
    const { w, ana, bia, caio } = await team();
    const dani = await memoryAgent(w, 'Dani');
    // Named Caio before Bia: the group passes to the lowest id (Bia), not to the first named.
    const owned = await run(w, () => s.createChat(ana, { title: 'Da Ana', users: [caio.userId, bia.userId, dani.userId] }));
    const pair = await run(w, () => s.createChat(ana, { title: 'Par', users: [bia.userId] }));
    const biaGroup = await run(w, () => s.createChat(bia, { title: 'Da Bia', users: [ana.userId, caio.userId] }));
    const png = { field: 'medias', fileName: 'foto.png', mimeType: 'image/png', data: PNG };
    await run(w, () => s.sendChatMessage(ana, pair.id, { body: 'oi' }, [png]));
    await run(w, () => s.sendChatMessage(ana, owned.id, { message: 'um' }, []));
    await run(w, () => s.sendChatMessage(caio, owned.id, { message: 'dois' }, []));
    await run(w, () => s.sendChatMessage(ana, biaGroup.id, { message: 'três' }, []));
    const before = unreadsOf((await run(w, () => s.listChats(bia, {}))).records.find((c) => c.id === owned.id)!);
    w.ports.forgetRecords();

    await run(w, () => s.removeUserFromChats(w.companyId, ana.userId));

    // Her pointers are gone and no chat names her.
    expect(w.ports.table.all().filter((i) => String(i.PK).includes(`#CHATS#${String(ana.userId).padStart(10, '0')}`))).toEqual([]);
    expect(w.ports.table.all().filter((i) => i.entity === 'chat' && (i.memberIds as number[]).includes(ana.userId))).toEqual([]);
    // The group she owned: Bia owns it now (first), the others' counts unchanged.
    const moved = (await run(w, () => s.listChats(bia, {}))).records.find((c) => c.id === owned.id)!;
    expect(moved.ownerId).toBe(bia.userId);
    expect(moved.users.map((u) => u.userId)).toEqual([bia.userId, caio.userId, dani.userId]);
    const { [ana.userId]: _gone, ...others } = before;
    expect(unreadsOf(moved)).toEqual(others);
    // Bia's group keeps its owner.
    expect((await run(w, () => s.listChats(caio, {}))).records.find((c) => c.id === biaGroup.id)).toMatchObject({ ownerId: bia.userId });
    // The pair is deleted as DELETE /chats/{id} deletes it: the chat, its messages, pointers and files.
    const pad = String(pair.id).padStart(10, '0');
    expect(w.ports.table.all().filter((i) => String(i.PK).endsWith(`#CHAT#${pad}`) || String(i.SK) === `CH#${pad}`)).toEqual([]);
    expect([...w.ports.objects.keys()].filter((k) => k.startsWith(`c/${w.companyId}/chats/${pair.id}/`))).toEqual([]);
    expect((await run(w, () => s.listChats(bia, {}))).records.map((c) => c.id).sort()).toEqual([owned.id, biaGroup.id].sort());
    // Events: only to the members who remain.
    const events = w.ports.published.filter((p) => p.event === `company-${w.companyId}-chat`);
    expect(events.map((e) => [(e.data as { action: string }).action, e.audience])).toEqual(
      expect.arrayContaining([
        ['update', [bia.userId, caio.userId, dani.userId].map((userId) => ({ kind: 'user', userId }))],
        ['delete', [{ kind: 'user', userId: bia.userId }]],
      ]),
    );
    expect(events.flatMap((e) => e.audience)).not.toContainEqual({ kind: 'user', userId: ana.userId });

    // Bia, the new owner, edits and deletes the group.
    expect((await run(w, () => s.updateChat(bia, owned.id, { title: 'Da Bia agora', users: [caio.userId] }))).title).toBe('Da Bia agora');
    await run(w, () => s.deleteChat(bia, owned.id));
    // Running it again finds nothing left to do.
    await run(w, () => s.removeUserFromChats(w.companyId, ana.userId));
  });

  it('a send racing the removal of a deleted user neither counts nor tells them; later sends neither', async () => {
    const { w, ana, bia, caio } = await team();
    const group = await run(w, () => s.createChat(ana, { title: 'Equipe', users: [bia.userId, caio.userId] }));
    const table = w.ports.table;
    const send = table.send;
    let removed = false;
    // The removal lands between the send's read of the chat and its transaction, in the same millisecond.
    table.send = (async (command: { constructor: { name: string } }) => {
      if (!removed && command.constructor.name === 'TransactWriteCommand' && JSON.stringify(command).includes('lastSeq = :prev')) {
        removed = true;
        await s.removeUserFromChats(w.companyId, ana.userId);
      }
      return send(command as never);
    }) as typeof send;
    w.ports.forgetRecords();
    await run(w, () => s.sendChatMessage(bia, group.id, { message: 'durante' }, []));
    table.send = send;
    expect(removed).toBe(true);
    await run(w, () => s.sendChatMessage(caio, group.id, { message: 'depois' }, []));
    const told = w.ports.published.filter((p) => (p.data as { action?: string }).action === 'new-message');
    expect(told).toHaveLength(2);
    for (const p of told) expect(p.audience).not.toContainEqual({ kind: 'user', userId: ana.userId });
    const stored = table.all().find((i) => i.entity === 'chat' && i.id === group.id) as { ownerId: number; memberIds: number[]; unreads: Record<string, number> };
    expect(stored).toMatchObject({ ownerId: bia.userId, memberIds: [bia.userId, caio.userId] });
    expect(stored.unreads).toEqual({ [bia.userId]: 1, [caio.userId]: 0 });
    expect(await refusal(run(w, () => s.sendChatMessage(ana, group.id, { message: 'x' }, [])))).toMatchObject({ status: 404 });
    expect((await run(w, () => s.listChats(ana, {}))).records).toEqual([]);
  });

  it('every route is behind the plan flag useInternalChat', async () => {
    const { ana } = await team();
    const chatRoutes = routes.filter((r) => r.path.startsWith('/chats'));
    expect(chatRoutes).toHaveLength(8);
    for (const route of chatRoutes) {
      expect(route.planFlag).toBe('useInternalChat');
      expect(() => authorizeRoute({ ...ana, plan: { ...ana.plan!, useInternalChat: true } }, route)).not.toThrow();
      expect(() => authorizeRoute({ ...ana, plan: { ...ana.plan!, useInternalChat: false } }, route)).toThrow('ERR_PLAN_FEATURE_DISABLED');
    }
  });
});
