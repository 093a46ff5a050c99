package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/webhook"
)

// The webhook slice's storage: load and commit (shared/webhook decides).
// The items keep the attribute names they had when the API's types were
// stored as they were (docs/data-model.md); the tags name attributes, as
// the store's marshal reads them.

// The store implements the webhook slice's port.
var _ webhook.Store = (*Store)(nil)

// endpointItem is a webhook endpoint (WEBHOOK#<id> under the
// organization).
type endpointItem struct {
	WebhookID        string     `json:"webhookId"`
	OrganizationID   string     `json:"organizationId"`
	URL              string     `json:"url"`
	Events           []string   `json:"events"`
	Description      string     `json:"description"`
	Enabled          bool       `json:"enabled"`
	DisabledReason   string     `json:"disabledReason,omitempty"`
	CreatedAt        time.Time  `json:"createdAt"`
	UpdatedAt        time.Time  `json:"updatedAt"`
	SealedSecret     string     `json:"sealedSecret,omitempty"`
	SealedPrevSecret string     `json:"sealedPrevSecret,omitempty"`
	PrevUntil        *time.Time `json:"prevUntil,omitempty"`
	// ClearSecret and ClearPrevSecret are the attributes of the secrets
	// stored in clear before sealing (migrateWebhookSecrets seals them).
	ClearSecret     string     `json:"secret,omitempty"`
	ClearPrevSecret string     `json:"prevSecret,omitempty"`
	FailingSince    *time.Time `json:"failingSince,omitempty"`
}

// Attribute names of an endpoint that its updates are conditioned on.
const (
	endpointVersion     = "updatedAt"
	endpointClearSecret = "secret"
)

func endpointItemOf(e webhook.Endpoint) endpointItem {
	return endpointItem{WebhookID: e.ID, OrganizationID: e.OrgID, URL: e.URL, Events: e.Events, Description: e.Description,
		Enabled: e.Enabled, DisabledReason: e.DisabledReason, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
		SealedSecret: e.SealedSecret, SealedPrevSecret: e.SealedPrevSecret, PrevUntil: e.PrevUntil,
		ClearSecret: e.ClearSecret, ClearPrevSecret: e.ClearPrevSecret, FailingSince: e.FailingSince}
}

func (it endpointItem) endpoint() webhook.Endpoint {
	return webhook.Endpoint{ID: it.WebhookID, OrgID: it.OrganizationID, URL: it.URL, Events: it.Events, Description: it.Description,
		Enabled: it.Enabled, DisabledReason: it.DisabledReason, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
		SealedSecret: it.SealedSecret, SealedPrevSecret: it.SealedPrevSecret, PrevUntil: it.PrevUntil,
		ClearSecret: it.ClearSecret, ClearPrevSecret: it.ClearPrevSecret, FailingSince: it.FailingSince}
}

// Endpoint reads an endpoint of orgID, or webhook.ErrNoEndpoint.
func (s *Store) Endpoint(ctx context.Context, orgID, id string) (webhook.Endpoint, error) {
	var it endpointItem
	found, err := s.get(ctx, orgPK(orgID), webhookSK(id), &it)
	if err == nil && !found {
		err = webhook.ErrNoEndpoint
	}
	return it.endpoint(), err
}

// Endpoints reads every endpoint of orgID, oldest first (at most
// webhook.MaxEndpoints: one Query page).
func (s *Store) Endpoints(ctx context.Context, orgID string) ([]webhook.Endpoint, error) {
	out, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: item{":pk": str(orgPK(orgID)), ":p": str(webhookPrefix)},
	})
	if err != nil {
		return nil, fmt.Errorf("query webhooks: %w", err)
	}
	es := make([]webhook.Endpoint, len(out.Items))
	for i, v := range out.Items {
		var it endpointItem
		if err := unmarshal(v, &it); err != nil {
			return nil, err
		}
		es[i] = it.endpoint()
	}
	return es, nil
}

// CreateEndpoint writes a new endpoint (webhook.Store).
func (s *Store) CreateEndpoint(ctx context.Context, e webhook.Endpoint) error {
	err := s.putEndpoint(ctx, e, "attribute_not_exists(PK)", nil)
	if isConditionFailed(err) {
		return fmt.Errorf("create webhook %s: its id is taken", e.ID)
	}
	return err
}

// UpdateEndpoint writes after, conditioned on the stored endpoint's
// version being before's and, when before had a clear secret, on that
// secret still being stored (the migration seals a clear secret without
// moving the version: this write, made from what was read before, must
// not put the clear secret back). A failed condition is
// webhook.ErrEndpointMoved.
func (s *Store) UpdateEndpoint(ctx context.Context, before, after webhook.Endpoint) error {
	cond := endpointVersion + " = :seen"
	values := item{":seen": str(before.UpdatedAt.Format(time.RFC3339Nano))}
	if before.ClearSecret != "" {
		cond, values[":clear"] = cond+" AND "+endpointClearSecret+" = :clear", str(before.ClearSecret)
	}
	err := s.putEndpoint(ctx, after, cond, values)
	if isConditionFailed(err) {
		return webhook.ErrEndpointMoved
	}
	return err
}

// putEndpoint writes e under cond (with values).
func (s *Store) putEndpoint(ctx context.Context, e webhook.Endpoint, cond string, values item) error {
	it, err := withKey(endpointItemOf(e), map[string]string{"PK": orgPK(e.OrgID), "SK": webhookSK(e.ID)})
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: it,
		ConditionExpression: aws.String(cond), ExpressionAttributeValues: values})
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("put webhook: %w", err)
	}
	return err
}

// DeleteEndpoint deletes an endpoint of orgID, or reports
// webhook.ErrNoEndpoint.
func (s *Store) DeleteEndpoint(ctx context.Context, orgID, id string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: key(orgPK(orgID), webhookSK(id)),
		ConditionExpression: aws.String("attribute_exists(PK)")})
	if isConditionFailed(err) {
		return webhook.ErrNoEndpoint
	}
	if err != nil {
		return fmt.Errorf("delete webhook: %w", err)
	}
	return nil
}
