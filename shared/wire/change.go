package wire

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/wallet"
	"github.com/giftcampaign/service/shared/webhook"
)

// change is a change message as the feed lists it and the webhooks send it
// (the OpenAPI document's ChangeMessage).
type change struct {
	ID             string    `json:"id"`
	Type           string    `json:"type"`
	CreatedAt      time.Time `json:"createdAt"`
	OrganizationID string    `json:"organizationId"`
	Data           any       `json:"data"`
}

// recipientRef is the data of a recipient.created or
// recipient.status_changed message whose recipient no longer exists (its
// campaign was deleted): the reference the record holds.
type recipientRef struct {
	CampaignID     string                  `json:"campaignId"`
	RecipientID    string                  `json:"recipientId"`
	PreviousStatus gifting.RecipientStatus `json:"previousStatus,omitempty"`
}

// testData is the data of the webhook.test message.
type testData struct {
	WebhookID string `json:"webhookId"`
}

// Change is the JSON of m as the change feed lists it and the webhooks
// send it: {id, type, createdAt, organizationId, data}.
func Change(m webhook.Message) ([]byte, error) {
	data, err := changeData(m.Data)
	if err != nil {
		return nil, fmt.Errorf("change %s (%s): %w", m.ID, m.Type, err)
	}
	return Marshal(change{ID: m.ID, Type: m.Type, CreatedAt: m.CreatedAt, OrganizationID: m.OrgID, Data: data})
}

// changeData is the shape a message's data leaves in: a slice's resource
// as its DTO (a wallet change, a campaign, a recipient, an audience).
func changeData(d any) (any, error) {
	switch d := d.(type) {
	case wallet.Entry:
		return WalletChangeOf(d), nil
	case audience.Audience:
		return AudienceOf(d), nil
	case webhook.RecipientRef:
		return recipientRef{CampaignID: d.CampaignID, RecipientID: d.RecipientID, PreviousStatus: d.PreviousStatus}, nil
	case webhook.Test:
		return testData{WebhookID: d.WebhookID}, nil
	case webhook.Snapshot:
		return json.RawMessage(d), nil
	case campaign.Campaign:
		return CampaignOf(d), nil
	case recipient.Recipient:
		return RecipientOf(d), nil
	case recipient.StatusChange:
		return RecipientStatusChangeOf(d), nil
	case fulfilment.Order:
		return OrderOf(d), nil
	case fulfilment.LowStock:
		return LowStock(d), nil
	}
	return nil, fmt.Errorf("data of type %T has no JSON shape", d)
}
