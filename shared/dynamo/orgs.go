package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// CreateOrg creates an organization in (checked: access.NewOrg.Check)
// with its wallet (and a top-up ledger entry for the initial credits,
// counted on the wallet) in one transaction (access.Store). It returns
// access.ErrOrgExists when the id is taken.
func (s *Store) CreateOrg(ctx context.Context, in access.NewOrg) (gifting.Organization, wallet.Wallet, error) {
	now := s.Now()
	org := gifting.Organization{
		OrgID: in.OrgID, Domain: in.Domain, DisplayName: in.Name, OrgName: in.Name,
		Budget: in.Budget, Products: in.Products, CreatedAt: now, UpdatedAt: now,
	}
	if org.Products == nil {
		org.Products = []string{}
	}
	// The wallet counts the ledger entries written with it: the opening
	// top-up below when there are initial credits (Credits is 0 or more).
	// Every entry it will have gets its Slim entry (ledgerPut), so its
	// ledger is indexed from the start.
	opening := walletItem{OrgID: in.OrgID, Balance: in.Credits, Currency: in.Budget.Currency, UpdatedAt: now,
		Entries: min(in.Credits, 1), LedgerIndexed: true}
	profile, err := withKey(org, map[string]string{"PK": orgPK(in.OrgID), "SK": profileSK})
	if err != nil {
		return gifting.Organization{}, wallet.Wallet{}, err
	}
	w, err := withKey(opening, map[string]string{"PK": orgPK(in.OrgID), "SK": walletSK})
	if err != nil {
		return gifting.Organization{}, wallet.Wallet{}, err
	}
	done, err := s.stepsDone(in.OrgID)
	if err != nil {
		return gifting.Organization{}, wallet.Wallet{}, err
	}
	// Its contacts counter exists from the start, so an import's batch of
	// counter updates finds it (CommitCounts).
	items := []types.TransactWriteItem{
		{Put: &types.Put{TableName: &s.table, Item: profile, ConditionExpression: aws.String("attribute_not_exists(PK)")}},
		{Put: &types.Put{TableName: &s.table, Item: w}},
		{Put: &types.Put{TableName: &s.table, Item: item{"PK": str(orgPK(in.OrgID)), "SK": str(counterSK(counterContacts)), "n": num(0)}}},
	}
	if !in.Unlisted {
		// Its entry in the registry the operator lists organizations by.
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: &s.table,
			Item: item{"PK": str(orgsPK), "SK": str(orgPK(in.OrgID)), "organizationId": str(in.OrgID)}}})
	}
	items = append(items, done...)
	if in.Credits > 0 {
		entry := wallet.Entry{EntryID: s.NewID(), Type: wallet.TopUp, Amount: in.Credits,
			BalanceAfter: in.Credits, Reason: "initial credits", CreatedAt: now}
		put, err := s.ledgerPut(in.OrgID, entry)
		if err != nil {
			return gifting.Organization{}, wallet.Wallet{}, err
		}
		// The opening credits are a top-up of the month's usage, as the
		// ledger entry says.
		items = append(items, put, s.usageAdd(in.OrgID, now, entryUsage(entry, 0)))
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if reasonCode(cancellationReasons(err), 0) == "ConditionalCheckFailed" {
		return gifting.Organization{}, wallet.Wallet{}, access.ErrOrgExists
	}
	if err != nil {
		return gifting.Organization{}, wallet.Wallet{}, fmt.Errorf("create org: %w", err)
	}
	return org, opening.wallet(), nil
}

// stepsDone are the puts of a new organization's migration steps that are
// done from the start. It has no contacts of the model before slots, so
// its contacts step is done and imports read no legacy email markers
// (Holdings); its contacts all get their search entries as they are
// written, so its contacts-search step is done too
// (contacts_search_ready.go).
func (s *Store) stepsDone(orgID string) ([]types.TransactWriteItem, error) {
	var out []types.TransactWriteItem
	for _, step := range []string{stepContacts, stepSearch} {
		it, err := withKey(migrationCursor{Done: true, Form: searchForm}, map[string]string{"PK": orgPK(orgID), "SK": migrateSK(step)})
		if err != nil {
			return nil, err
		}
		out = append(out, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: it}})
	}
	return out, nil
}

// Org returns an organization's profile, or access.ErrNoOrg.
func (s *Store) Org(ctx context.Context, orgID string) (gifting.Organization, error) {
	return getOrNotFound[gifting.Organization](ctx, s, orgPK(orgID), profileSK, access.ErrNoOrg)
}

// PutBranding replaces an organization's branding on its profile
// (access.Store), or returns access.ErrNoOrg.
func (s *Store) PutBranding(ctx context.Context, orgID string, b gifting.Branding) error {
	v, err := marshalValue(b)
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table,
		Key:                       key(orgPK(orgID), profileSK),
		UpdateExpression:          aws.String("SET branding = :b"),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		ExpressionAttributeValues: item{":b": v}})
	if isConditionFailed(err) {
		return access.ErrNoOrg
	}
	if err != nil {
		return fmt.Errorf("put branding: %w", err)
	}
	return nil
}
