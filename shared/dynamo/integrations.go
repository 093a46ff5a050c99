package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/fulfilment"
)

// integrationSK is the item of an organization's integration with a
// service outside (EasyPost): its sealed webhook secret.
func integrationSK(name string) string { return "INTEGRATION#" + name }

// integrationItem is an integration's item: the sealed secret only
// (shared/sealed: it opens only for its organization).
type integrationItem struct {
	SealedSecret string    `json:"secret"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

// SetEasyPostSecret stores orgID's sealed EasyPost webhook secret,
// replacing the one before (fulfilment.Secrets).
func (s *Store) SetEasyPostSecret(ctx context.Context, orgID, sealed string, at time.Time) error {
	it, err := withKey(integrationItem{SealedSecret: sealed, UpdatedAt: at},
		map[string]string{"PK": orgPK(orgID), "SK": integrationSK("easypost")})
	if err != nil {
		return err
	}
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: it}); err != nil {
		return fmt.Errorf("put the EasyPost integration: %w", err)
	}
	return nil
}

// EasyPostSecret reads orgID's sealed EasyPost webhook secret and when
// it was set, strongly consistent; the zero value when none is set
// (fulfilment.Secrets).
func (s *Store) EasyPostSecret(ctx context.Context, orgID string) (fulfilment.SealedSecret, error) {
	var it integrationItem
	if _, err := s.get(ctx, orgPK(orgID), integrationSK("easypost"), &it); err != nil {
		return fulfilment.SealedSecret{}, err
	}
	return fulfilment.SealedSecret{Sealed: it.SealedSecret, UpdatedAt: it.UpdatedAt}, nil
}
