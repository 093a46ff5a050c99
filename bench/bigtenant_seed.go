package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/gifting"
)

// bigTenant is one organization grown to n contacts for the scale table: a
// list of all of them, a campaign launched over that list (n recipients),
// an audience built over them (two in five match) and a ledger of n/2
// entries.
type bigTenant struct {
	t                              tenant
	n, ledger                      int
	listID, campaignID, audienceID string
	// grow is the import and the launch, measured.
	grow []growRow
}

// growRow is one piece of the growth measured from the meter: its wall
// time, the write units AWS would bill and the busiest second of one
// partition key.
type growRow struct {
	what   string
	took   time.Duration
	billed float64
	counts meter.Counts
	peak   meter.PartitionSecond
}

// bigRun is the run name in the contacts' emails and names (person).
const bigRun = "big"

// growTenant grows a tenant to n contacts in e (a table of its own).
// Contacts and recipients go through the API as a tenant would write them:
// the bulk add of 100 contacts a request, two requests in flight, and one
// launch over the list (paced as the service paces it). Only the ledger is
// copied (copyLedger): n/2 wallet changes through the API would take longer
// than everything else.
func growTenant(ctx context.Context, e *env, n int) (*bigTenant, error) {
	const price = 1
	b := &bigTenant{n: n, ledger: max(100, n/2)}
	var err error
	if b.t, err = e.newTenant(ctx, fmt.Sprintf("big%d", n), int64(4*n*price)); err != nil {
		return nil, err
	}
	if b.listID, err = e.createList(ctx, b.t, "Everyone"); err != nil {
		return nil, err
	}
	progress("  import %d contacts", n)
	var ids []string
	imp, err := measureGrowth(e, fmt.Sprintf("import of %d contacts (POST /contact-lists/{id}/contacts, 100 a request, 2 in flight)", n), func() (err error) {
		ids, _, err = e.importContacts(ctx, b.t, b.listID, bigRun, 0, n, 2)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	if slices.Contains(ids, "") {
		return nil, fmt.Errorf("import: some contacts were not created")
	}
	if b.campaignID, err = e.newCampaign(ctx, b.t, "Everyone", []string{b.listID}, price); err != nil {
		return nil, err
	}
	progress("  launch over %d contacts", n)
	launch, err := measureGrowth(e, fmt.Sprintf("launch of a %d-recipient campaign (POST /launch to the last recipient written)", n), func() error {
		_, err := e.expect(ctx, b.t, http.StatusAccepted, "POST", "/api/campaigns/"+b.campaignID+"/launch", nil)
		e.queue.Wait()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	if _, total, err := e.campaignState(ctx, b.t, b.campaignID); err != nil || total != n {
		return nil, fmt.Errorf("launch: %d recipients, want %d (%v)", total, n, err)
	}
	b.grow = []growRow{imp, launch}
	progress("  audience build over %d contacts", n)
	icpID, err := e.createPersona(ctx, b.t)
	if err != nil {
		return nil, err
	}
	if b.audienceID, err = e.buildAudience(ctx, b.t, icpID); err != nil {
		return nil, err
	}
	progress("  ledger of %d entries", b.ledger)
	return b, copyLedger(ctx, e, b.t, b.ledger)
}

// measureGrowth runs f, observing every DynamoDB call it causes (its
// background jobs included).
func measureGrowth(e *env, what string, f func() error) (growRow, error) {
	took, counts, calls, err := e.observeCalls(f)
	r := growRow{what: what, took: took, counts: counts}
	if err != nil {
		return r, err
	}
	r.billed = e.bill.writeUnits(context.Background(), calls)
	if busiest := meter.PartitionSeconds(calls, e.bill.layout()); len(busiest) > 0 {
		r.peak = busiest[0]
	}
	return r, nil
}

// copyLedger brings t's ledger to want entries: copies of its newest entry
// (the launch's debit), each under a new entry id, written with
// BatchWriteItem, and the wallet's entry count moved by as many. The
// copies are entries as the wallet writes them; only their amounts repeat,
// which no ledger page reads differently.
func copyLedger(ctx context.Context, e *env, t tenant, want int) error {
	out, err := e.client.Query(ctx, &dynamodb.QueryInput{
		TableName:              &e.table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: "ORG#" + t.orgID}, ":p": &types.AttributeValueMemberS{Value: "LEDGER#"},
		},
		ScanIndexForward: aws.Bool(false), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return err
	}
	if len(out.Items) == 0 {
		return fmt.Errorf("the tenant has no ledger entry to copy: the store's ledger layout changed; update bench/bigtenant_seed.go")
	}
	tpl := out.Items[0]
	oldID := attrString(tpl["entryId"])
	copies := want - len(out.Items)
	if copies <= 0 {
		return nil
	}
	items := make(chan map[string]types.AttributeValue, 100)
	done := make(chan error, 1)
	go func() { done <- batchWrite(ctx, e, items) }()
	for range copies {
		items <- replaceStrings(tpl, strings.NewReplacer(oldID, gifting.NewID()))
	}
	close(items)
	if err := <-done; err != nil {
		return err
	}
	_, err = e.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &e.table,
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "ORG#" + t.orgID}, "SK": &types.AttributeValueMemberS{Value: "WALLET"},
		},
		UpdateExpression:          aws.String("ADD entries :n"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: strconv.Itoa(copies)}},
	})
	return err
}
