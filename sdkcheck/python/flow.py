"""The integrator's flow of issue 19 with the client openapi-python-client generates (package gcs_client).

Usage: flow.py BASE_URL API_KEY. Exits non-zero on the first call whose answer has another status than
expected or did not parse into its generated type (parsed None, or data left UNSET).
"""

import sys

from gcs_client import AuthenticatedClient, Client
from gcs_client.api.campaigns import create_campaign, get_campaign, get_campaign_metrics
from gcs_client.api.catalog import list_gifts
from gcs_client.api.contacts import add_contacts_to_list, create_contact_list
from gcs_client.api.recipients import add_recipient, get_wallet, list_campaign_recipients
from gcs_client import models
from gcs_client.types import UNSET

passed = 0


def check(step, response, status, kind):
    """Fails unless the response has status and parsed into kind, with data set where kind has it."""
    global passed
    if response.status_code != status:
        sys.exit(f"{step}: status {response.status_code}, want {status}: {response.content!r}")
    parsed = response.parsed
    if not isinstance(parsed, kind):
        sys.exit(f"{step}: parsed into {type(parsed).__name__}, want {kind.__name__}: {response.content!r}")
    if getattr(parsed, "data", None) is UNSET:
        sys.exit(f"{step}: data left UNSET: {response.content!r}")
    passed += 1
    return parsed


def main(base_url, key):
    api = AuthenticatedClient(base_url=base_url, token=key, prefix="", auth_header_name="x-api-key")

    gifts = check("list gifts", list_gifts.sync_detailed(client=api), 200, models.GiftList)
    gift_id = gifts.data[0].gift_id

    created = check("create list", create_contact_list.sync_detailed(
        client=api, body=models.CreateContactListBody(name="SDK flow (python)")),
        201, models.CreateContactListResponse201)
    list_id = created.data.list_id

    bulk = check("bulk add", add_contacts_to_list.sync_detailed(
        list_id, client=api, body=models.BulkAddInput.from_dict({"contacts": [{"email": "ada@example.com"}]})),
        200, models.AddContactsToListResponse200)
    if bulk.data.received != 1:
        sys.exit(f"bulk add: received {bulk.data.received}, want 1")

    campaign = check("create campaign", create_campaign.sync_detailed(
        client=api, body=models.CreateCampaignBody.from_dict(
            {"name": "SDK flow (python)", "campaignData": {"contactListId": list_id, "giftIds": [gift_id]}})),
        201, models.CreateCampaignResponse201)
    campaign_id = campaign.data.campaign_id

    added = check("add recipient", add_recipient.sync_detailed(
        campaign_id, client=api,
        body=models.AddRecipientInput.from_dict({"contactDetails": {"email": "grace@example.com"}})),
        200, models.AddedRecipient)

    recipients = check("list recipients", list_campaign_recipients.sync_detailed(campaign_id, client=api),
                       200, models.RecipientList)
    ids = [r.recipient_id for r in recipients.recipients]
    if ids != [added.recipient_id]:
        sys.exit(f"list recipients: {ids}, want [{added.recipient_id}]")

    check("metrics", get_campaign_metrics.sync_detailed(campaign_id, client=api),
          200, models.GetCampaignMetricsResponse200)
    check("wallet", get_wallet.sync_detailed(client=api), 200, models.GetWalletResponse200)
    check("400", list_gifts.sync_detailed(client=api, limit=1000), 400, models.BadRequestError)
    check("401", get_wallet.sync_detailed(client=Client(base_url=base_url)), 401, models.UnauthorizedError)
    check("404", get_campaign.sync_detailed("no-such-campaign", client=api), 404, models.NotFoundError)
    print(f"python flow: {passed} passed, 0 failed")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
