// The integrator's flow of issue 19 with the client @hey-api/openapi-ts generates (under ./gen): the SDK
// validates every successful response with the generated zod schemas; error bodies are parsed with theirs.
// Usage: node flow.js BASE_URL API_KEY. Exits non-zero on the first call that does not come back as its
// generated type.
import { createClient } from './gen/client/index.js';
import {
  addContactsToList, addRecipient, createCampaign, createContactList, getCampaign, getCampaignMetrics,
  getWallet, listCampaignRecipients, listGifts,
} from './gen/sdk.gen.js';
import { zBadRequestError, zNotFoundError, zUnauthorizedError } from './gen/zod.gen.js';

const [baseUrl, key] = process.argv.slice(2);
const api = createClient({ baseUrl, auth: () => key });
const anonymous = createClient({ baseUrl });
let passed = 0;

// ok returns the call's data when it came back with status and parsed; the SDK has validated it.
async function ok<T>(step: string, status: number, call: Promise<{ data?: T; error?: unknown; response?: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response?.status !== status || data === undefined) {
    throw new Error(`${step}: status ${response?.status}, want ${status}: ${JSON.stringify(error ?? data)}`);
  }
  passed++;
  return data;
}

// failed parses an error body with its generated schema.
async function failed(step: string, status: number, schema: { parse(v: unknown): unknown },
  call: Promise<{ error?: unknown; response?: Response }>): Promise<void> {
  const { error, response } = await call;
  if (response?.status !== status) {
    throw new Error(`${step}: status ${response?.status}, want ${status}`);
  }
  schema.parse(error);
  passed++;
}

async function main(): Promise<void> {
  const gifts = await ok('list gifts', 200, listGifts({ client: api }));
  const giftId = gifts.data[0].giftId;

  const list = await ok('create list', 201, createContactList({ client: api, body: { name: 'SDK flow (ts)' } }));
  const listId = list.data.listId;

  const bulk = await ok('bulk add', 200, addContactsToList({
    client: api, path: { listId }, body: { contacts: [{ email: 'ada@example.com' }] },
  }));
  if (bulk.data.received !== 1) throw new Error(`bulk add: received ${bulk.data.received}, want 1`);

  const campaign = await ok('create campaign', 201, createCampaign({
    client: api, body: { name: 'SDK flow (ts)', campaignData: { contactListId: listId, giftIds: [giftId] } },
  }));
  const campaignId = campaign.data.campaignId;

  const added = await ok('add recipient', 200, addRecipient({
    client: api, path: { campaignId }, body: { contactDetails: { email: 'grace@example.com' } },
  }));

  const recipients = await ok('list recipients', 200, listCampaignRecipients({ client: api, path: { campaignId } }));
  if (!Array.isArray(recipients.recipients) || recipients.recipients[0]?.recipientId !== added.recipientId) {
    throw new Error(`list recipients: ${JSON.stringify(recipients.recipients)}, want ${added.recipientId}`);
  }

  await ok('metrics', 200, getCampaignMetrics({ client: api, path: { campaignId } }));
  await ok('wallet', 200, getWallet({ client: api }));

  // The SDK would refuse limit=1000 itself; the check is the server's 400 and its parsing.
  await failed('400', 400, zBadRequestError, listGifts({
    client: api, query: { limit: 1000 }, requestValidator: async () => undefined,
  }));
  await failed('401', 401, zUnauthorizedError, getWallet({ client: anonymous }));
  await failed('404', 404, zNotFoundError, getCampaign({ client: api, path: { campaignId: 'no-such-campaign' } }));
  console.log(`ts flow: ${passed} passed, 0 failed`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
