// The life invoices and refunds share, on a kind of record of the test's own over the in-memory store.
import { ConflictError, InProgressError, NotFoundError } from '../../domain/errors';
import type { ClaimedRecord } from '../../domain/model';
import { ClaimedRecords, type ClaimTiming } from '../../domain/records';
import { MemoryStore } from '../support/memory-store';

interface NoteRequest {
  foreignId: string;
  text: string;
}

/** A kind with one field of its own, which a takeover carries on. */
interface NoteRecord extends ClaimedRecord<NoteRequest> {
  tries: number;
}

const START = Date.UTC(2030, 0, 1);
let clock: { ms: number };
let store: MemoryStore<NoteRecord>;
let notes: ClaimedRecords<NoteRecord>;

function recordsWith(timing: Partial<ClaimTiming> = {}): ClaimedRecords<NoteRecord> {
  const full = { now: () => clock.ms, leaseMs: 45_000, waitMs: 5_000, pollMs: 100, ...timing };
  return new ClaimedRecords(store, full, 'Note', { tries: 1 });
}

beforeEach(() => {
  clock = { ms: START };
  store = new MemoryStore<NoteRecord>((record) => record.sweptAt ?? record.updatedAt);
  notes = recordsWith();
});

const note = (foreignId: string, text = 'hello'): NoteRequest => ({ foreignId, text });
const nextTry = (existing: NoteRecord) => ({ tries: existing.tries + 1 });

/** Claims `foreignId` and leaves it in `phase` with its claim released, as a send that ended so would. */
async function leftIn(phase: 'unknown' | 'rejected', foreignId = 'n-1'): Promise<NoteRecord> {
  const { record } = await notes.claim(note(foreignId), { account: 'shared', unpinned: 'shared' });
  await notes.release(record, phase === 'rejected' ? 'refused' : undefined);
  return (await store.get(foreignId))!;
}

describe('claim', () => {
  test('a new foreign_id gets a fresh record on the account given, owned by this caller, with the fields of its kind', async () => {
    const claimed = await notes.claim(note('n-1'), { account: 'own', unpinned: 'own' });

    expect(claimed.owned).toBe(true);
    expect(claimed.previous).toBeUndefined();
    expect(claimed.record).toEqual({
      foreignId: 'n-1',
      version: 1,
      phase: 'sending',
      request: note('n-1'),
      claimedAt: START,
      claimId: expect.any(String),
      status: null,
      error: null,
      history: [],
      createdAt: START,
      updatedAt: START,
      account: 'own',
      tries: 1,
    });
    expect(await store.get('n-1')).toEqual(claimed.record);
  });

  test('a repeat of an answered request gets the stored record and no claim', async () => {
    const { record } = await notes.claim(note('n-1'), { account: 'shared', unpinned: 'shared' });
    const { record: sent } = await notes.save(
      record,
      notes.answered(record, { status: 'done' }, 'create', {}),
    );

    await expect(notes.claim(note('n-1'), { account: 'shared', unpinned: 'shared' })).resolves.toEqual({
      record: sent,
      owned: false,
    });
  });

  test('another request under the same foreign_id is a conflict, unless the first was refused', async () => {
    await notes.claim(note('n-1'), { account: 'shared', unpinned: 'shared' });
    await expect(
      notes.claim(note('n-1', 'other'), { account: 'shared', unpinned: 'shared' }),
    ).rejects.toMatchObject({
      constructor: ConflictError,
      code: 'foreign_id_conflict',
    });

    await leftIn('rejected', 'n-2');
    await expect(
      notes.claim(note('n-2', 'other'), { account: 'shared', unpinned: 'shared' }),
    ).resolves.toMatchObject({ owned: true });
  });

  test('the same request with its keys in another order is a repeat, not a conflict', async () => {
    await notes.claim({ text: 'hello', foreignId: 'n-1' }, { account: 'shared', unpinned: 'shared' });
    await expect(
      recordsWith({ waitMs: 0 }).claim(note('n-1'), { account: 'shared', unpinned: 'shared' }),
    ).rejects.toBeInstanceOf(InProgressError);
  });

  test('a takeover of an unknown outcome keeps createdAt and account, carries its own fields on and names what it took', async () => {
    const before = await leftIn('unknown');
    clock.ms += 60_000;

    // The store has moved to its own account since: the send that may have happened was on the shared one.
    const claimed = await notes.claim(note('n-1'), { account: 'own', unpinned: 'own' }, nextTry);

    expect(claimed.owned).toBe(true);
    expect(claimed.previous).toEqual(before);
    expect(claimed.record).toMatchObject({
      version: before.version + 1,
      phase: 'sending',
      claimedAt: START + 60_000,
      createdAt: START,
      account: 'shared',
      error: null,
      tries: 2,
    });
  });

  test('a claim whose lease ran out is taken over; one still held makes a duplicate wait, then answer in progress', async () => {
    await notes.claim(note('n-1'), { account: 'shared', unpinned: 'shared' });
    // The lease holds: a duplicate waits for the holder's answer, here not at all, and then says so.
    await expect(
      recordsWith({ waitMs: 0 }).claim(note('n-1'), { account: 'shared', unpinned: 'shared' }),
    ).rejects.toBeInstanceOf(InProgressError);

    clock.ms += 45_000;
    await expect(
      notes.claim(note('n-1'), { account: 'shared', unpinned: 'shared' }, nextTry),
    ).resolves.toMatchObject({
      owned: true,
      record: { tries: 2 },
      previous: { phase: 'sending' },
    });
  });
});

describe('claim, when a write lands but its answer is lost', () => {
  /** A store whose next write to land answers false all the same, as the SDK's retry of it does when its condition fails. */
  function losingNextAnswer(): void {
    const write = (landed: (record: NoteRecord, version: number) => Promise<boolean>) =>
      async function (this: MemoryStore<NoteRecord>, record: NoteRecord, version: number) {
        if (await landed.call(this, record, version)) restore();
        return false;
      };
    const { create, update } = store;
    const restore = () => Object.assign(store, { create, update });
    Object.assign(store, { create: write(create), update: write(update) });
  }

  test('a create that landed is owned by its claim, not waited on as another holder', async () => {
    losingNextAnswer();

    const claimed = await recordsWith({ waitMs: 0 }).claim(note('n-1'), {
      account: 'shared',
      unpinned: 'shared',
    });

    expect(claimed).toMatchObject({ owned: true, record: { version: 1, phase: 'sending' } });
    expect(claimed.previous).toBeUndefined();
  });

  test('a takeover that landed is owned and names the record it took over', async () => {
    const before = await leftIn('unknown');
    losingNextAnswer();

    const claimed = await recordsWith({ waitMs: 0 }).claim(
      note('n-1'),
      { account: 'shared', unpinned: 'shared' },
      nextTry,
    );

    expect(claimed).toMatchObject({ owned: true, record: { version: before.version + 1, tries: 2 } });
    expect(claimed.previous).toEqual(before);
  });

  test("another caller's claim of the same request is still waited on", async () => {
    await notes.claim(note('n-1'), { account: 'shared', unpinned: 'shared' });

    await expect(
      recordsWith({ waitMs: 0 }).claim(note('n-1'), { account: 'shared', unpinned: 'shared' }),
    ).rejects.toBeInstanceOf(InProgressError);
  });
});

describe('answered and release', () => {
  test('answered: sent at the status given, its error, one more history entry and its own fields', async () => {
    const { record } = await notes.claim(note('n-1'), { account: 'shared', unpinned: 'shared' });
    clock.ms += 1_000;

    const next = notes.answered(record, { status: 'pending', error: 'slow' }, 'lookup', { tries: 5 });

    expect(next).toMatchObject({
      phase: 'sent',
      status: 'pending',
      error: 'slow',
      tries: 5,
      history: [{ status: 'pending', at: START + 1_000, source: 'lookup' }],
      updatedAt: START + 1_000,
    });
    expect(notes.answered(record, { status: 'pending' }, 'create', {}).error).toBeNull();
  });

  test('release: a refusal rejects the request with its reason; no refusal leaves the outcome unknown', async () => {
    expect(await leftIn('rejected', 'n-1')).toMatchObject({
      phase: 'rejected',
      error: 'refused',
      version: 2,
    });
    expect(await leftIn('unknown', 'n-2')).toMatchObject({ phase: 'unknown', error: null, version: 2 });
  });

  test('release after a lost race changes nothing and does not throw: the lease runs out instead', async () => {
    const { record } = await notes.claim(note('n-1'), { account: 'shared', unpinned: 'shared' });
    const { record: moved } = await notes.save(record, { ...record, updatedAt: START + 1 });

    await expect(notes.release(record, undefined)).resolves.toBeUndefined();
    expect(await store.get('n-1')).toEqual(moved);
  });
});

describe('reading and the sweep', () => {
  test('read answers the stored record, and NotFoundError naming the kind when there is none', async () => {
    const { record } = await notes.claim(note('n-1'), { account: 'shared', unpinned: 'shared' });

    await expect(notes.read('n-1')).resolves.toEqual(record);
    await expect(notes.read('n-2')).rejects.toMatchObject({
      constructor: NotFoundError,
      message: 'Note was not found',
    });
  });

  test('listDue lists open records due by then, longest due first; markSwept moves one behind the others', async () => {
    for (const [foreignId, at] of [
      ['early', START + 1_000],
      ['late', START + 2_000],
    ] as const) {
      clock.ms = at;
      await notes.claim(note(foreignId), { account: 'shared', unpinned: 'shared' });
    }
    await leftIn('rejected', 'closed');

    expect((await notes.listDue(10, START + 5_000)).map((r) => r.record.foreignId)).toEqual([
      'early',
      'late',
    ]);
    expect((await notes.listDue(10, START + 1_500)).map((r) => r.record.foreignId)).toEqual(['early']);

    // Once the claim's lease is over: until then its holder may still write over the version it claimed.
    const looked = START + 1_000 + 45_000;
    clock.ms = looked;
    await notes.markSwept('early');

    expect(await store.get('early')).toMatchObject({ sweptAt: looked, version: 2 });
    expect((await notes.listDue(10, looked)).map((r) => r.record.foreignId)).toEqual(['late', 'early']);
  });

  test("markSwept leaves a claim alone while its lease is held: its holder's next write would lose to it", async () => {
    const { record } = await notes.claim(note('held'), { account: 'shared', unpinned: 'shared' });
    clock.ms = START + 44_999;

    await notes.markSwept('held');

    expect(await store.get('held')).toEqual(record);
    expect((await notes.save(record, { ...record, phase: 'sent' })).won).toBe(true);
  });
});
