package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/oklog/ulid/v2"
)

// ledgerEntries is the size of the ledger the deep wallet page reads: the
// issue's tenant with 50,000 ledger entries, read at page 500 of 100.
const ledgerEntries = 50_000

// ledgerPages compares page 1, a deep page by number and the same page by
// cursor of GET /wallet (limit 100) over n ledger entries.
//
// Adding 50,000 recipients through the API would take DynamoDB Local far
// longer than the benchmark's budget, so 20 are added through the API and
// the other entries are copies of the ledger entries those wrote (each
// with a new id, older than every real one, its messages and Slim keys
// included, as the store wrote them), written with BatchWriteItem; the
// wallet's balance and entry count move by what the copies add, so the
// ledger still sums to the balance and the total is exact.
func ledgerPages(ctx context.Context, e *env, n int) []systemFigure {
	deep := n/100 - 1 // the last full page but one: ~n entries skipped
	fig := func(measured, verdict string) []systemFigure {
		return []systemFigure{{figure: fmt.Sprintf("GET /wallet?limit=100 with %d ledger entries: page %d by number against page 1 and the same page by cursor", n, deep),
			measured: measured, target: "≤ page 1's units + 1 RRU per 40 entries skipped; heap ≤ 32 MB", verdict: verdict}}
	}
	const price = 10
	t, err := e.newTenant(ctx, "ledger", 1_000_000_000)
	if err != nil {
		return fig("failed: "+oneLine(err.Error()), "")
	}
	campaignID, err := e.newCampaign(ctx, t, "Ledger", nil, price)
	if err != nil {
		return fig("failed: "+oneLine(err.Error()), "")
	}
	for k := range 20 {
		if _, err := e.expect(ctx, t, http.StatusOK, "POST", "/api/campaigns/campaigns/"+campaignID+"/add-recipient", recipientBody("ledger", k)); err != nil {
			return fig("failed: "+oneLine(err.Error()), "")
		}
	}
	if err := cloneLedger(ctx, e, t, n-21, price); err != nil {
		return fig("failed to load the ledger: "+oneLine(err.Error()), "")
	}
	type call struct {
		rru, requests, heap []float64
		took                []time.Duration
		ids                 []string
	}
	get := func(c *call, query string) error {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		// DynamoDB Local pages through a large index partition far more
		// slowly than DynamoDB: a deep page may take minutes there.
		cctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		defer cancel()
		res, err := e.expect(cctx, t, http.StatusOK, "GET", "/api/campaigns/wallet?"+query, nil)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if err != nil {
			return err
		}
		page, err := decodeLedgerPage(res)
		if err != nil {
			return err
		}
		if page.total != n || len(page.ids) != 100 {
			return fmt.Errorf("%s: %d entries of a total of %d; want 100 of %d", query, len(page.ids), page.total, n)
		}
		counts := e.last.Load().Counts()
		c.rru, c.requests = append(c.rru, counts.ReadUnits), append(c.requests, float64(counts.Requests))
		c.heap, c.took, c.ids = append(c.heap, float64(after.TotalAlloc-before.TotalAlloc)/(1<<20)), append(c.took, took), page.ids
		return nil
	}
	// The cursor of the deep page is the previous page's nextCursor.
	pctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	res, err := e.expect(pctx, t, http.StatusOK, "GET", fmt.Sprintf("/api/campaigns/wallet?page=%d&limit=100", deep-1), nil)
	if err != nil {
		return fig("failed: "+oneLine(err.Error()), "")
	}
	prev, err := decodeLedgerPage(res)
	if err != nil || prev.next == "" {
		return fig(fmt.Sprintf("failed: page %d has no nextCursor (%v)", deep-1, err), "")
	}
	var first, byNumber, byCursor call
	for range 3 {
		for _, c := range []struct {
			c     *call
			query string
		}{{&first, "page=1&limit=100"}, {&byNumber, fmt.Sprintf("page=%d&limit=100", deep)}, {&byCursor, "limit=100&cursor=" + prev.next}} {
			if err := get(c.c, c.query); err != nil {
				return fig("failed: "+oneLine(err.Error()), "")
			}
		}
	}
	if !slices.Equal(byNumber.ids, byCursor.ids) {
		return fig(fmt.Sprintf("failed: page %d by number and by cursor differ", deep), "")
	}
	skipped := (deep - 1) * 100
	bound := medianFloat(first.rru) + float64(skipped)/40
	line := func(name string, c call) string {
		return fmt.Sprintf("%s: %s RRU in %s requests, %s, heap %.1f MB", name, num(medianFloat(c.rru)), num(medianFloat(c.requests)),
			ms(median(c.took)), medianFloat(c.heap))
	}
	return fig(fmt.Sprintf("%s; %s; %s; bound for page %d: %.1f RRU (%d skipped)", line("page 1", first),
		line(fmt.Sprintf("page %d", deep), byNumber), line("by cursor", byCursor), deep, bound, skipped),
		verdict(medianFloat(byNumber.rru) <= bound && medianFloat(byNumber.heap) <= 32))
}

// ledgerPage is what the ledger figures read of a GET /wallet answer.
type ledgerPage struct {
	ids   []string
	total int
	next  string
}

func decodeLedgerPage(res response) (ledgerPage, error) {
	var body struct {
		Data struct {
			Ledger struct {
				Items []struct {
					EntryID string `json:"entryId"`
				} `json:"items"`
				Pagination struct {
					Total int `json:"total"`
				} `json:"pagination"`
				NextCursor string `json:"nextCursor"`
			} `json:"ledger"`
		} `json:"data"`
	}
	if err := res.decode(&body); err != nil {
		return ledgerPage{}, err
	}
	p := ledgerPage{total: body.Data.Ledger.Pagination.Total, next: body.Data.Ledger.NextCursor}
	for _, it := range body.Data.Ledger.Items {
		p.ids = append(p.ids, it.EntryID)
	}
	return p, nil
}

// cloneLedger gives t copies more ledger entries, copies of the debits the
// API wrote (messages and index keys included), with ids older than every
// entry the API wrote; the wallet's balance and entry count move with them.
func cloneLedger(ctx context.Context, e *env, t tenant, copies, price int) error {
	out, err := e.client.Query(ctx, &dynamodb.QueryInput{
		TableName:                &e.table,
		KeyConditionExpression:   aws.String("PK = :pk AND begins_with(SK, :p)"),
		FilterExpression:         aws.String("#type = :debit"),
		ExpressionAttributeNames: map[string]string{"#type": "type"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: "ORG#" + t.orgID}, ":p": &types.AttributeValueMemberS{Value: "LEDGER#"},
			":debit": &types.AttributeValueMemberS{Value: "debit"},
		},
	})
	if err != nil {
		return err
	}
	if len(out.Items) == 0 {
		return fmt.Errorf("no debit in the ledger to copy")
	}
	items := make(chan map[string]types.AttributeValue, 100)
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := batchWrite(ctx, e, items); err != nil {
				errs <- err
			}
		}()
	}
	start := time.Now().Add(-60 * 24 * time.Hour)
	for k := range copies {
		tpl := out.Items[k%len(out.Items)]
		oldID := attrString(tpl["entryId"])
		newID := ulid.MustNew(ulid.Timestamp(start.Add(time.Duration(k)*time.Millisecond)), rand.Reader).String()
		select {
		case items <- replaceStrings(tpl, strings.NewReplacer(oldID, newID)):
		case err := <-errs:
			close(items)
			wg.Wait()
			return err
		}
	}
	close(items)
	wg.Wait()
	if len(errs) > 0 {
		return <-errs
	}
	_, err = e.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:        &e.table,
		Key:              map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ORG#" + t.orgID}, "SK": &types.AttributeValueMemberS{Value: "WALLET"}},
		UpdateExpression: aws.String("ADD entries :n, balance :d"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":n": &types.AttributeValueMemberN{Value: strconv.Itoa(copies)},
			":d": &types.AttributeValueMemberN{Value: strconv.Itoa(-copies * price)},
		},
	})
	return err
}

// feedContacts and feedAdds make the change feed the feed figure pages
// through: a launch over feedContacts contacts (its records hold up to 500
// messages each) and feedAdds add-recipients (each a ledger entry holding
// 2 messages).
const (
	feedContacts = 5_000
	feedAdds     = 150
)

// feedPages pages through GET /changes?limit=100 over a launch and
// add-recipients, and reports the read units of a page.
func feedPages(ctx context.Context, e *env) []systemFigure {
	fig := func(measured string) []systemFigure {
		return []systemFigure{{figure: fmt.Sprintf("GET /changes?limit=100 over a launch of %d recipients and %d add-recipients: read units of a page", feedContacts, feedAdds),
			measured: measured, target: "— (floor ≈ the page's records + its recipients, eventually consistent: ~60–75 RRU)"}}
	}
	const price = 10
	t, err := e.newTenant(ctx, "feed", (feedContacts+feedAdds)*price)
	if err != nil {
		return fig("failed: " + oneLine(err.Error()))
	}
	listID, err := e.createList(ctx, t, "Feed")
	if err != nil {
		return fig("failed: " + oneLine(err.Error()))
	}
	if _, _, err := e.importContacts(ctx, t, listID, "feed", 0, feedContacts, 1); err != nil {
		return fig("failed: " + oneLine(err.Error()))
	}
	launched, err := e.newCampaign(ctx, t, "Feed launch", []string{listID}, price)
	if err != nil {
		return fig("failed: " + oneLine(err.Error()))
	}
	if _, err := e.expect(ctx, t, http.StatusAccepted, "POST", "/api/campaigns/"+launched+"/launch", nil); err != nil {
		return fig("failed: " + oneLine(err.Error()))
	}
	e.queue.Wait()
	draft, err := e.newCampaign(ctx, t, "Feed adds", nil, price)
	if err != nil {
		return fig("failed: " + oneLine(err.Error()))
	}
	for k := range feedAdds {
		if _, err := e.expect(ctx, t, http.StatusOK, "POST", "/api/campaigns/campaigns/"+draft+"/add-recipient", recipientBody("feed", k)); err != nil {
			return fig("failed: " + oneLine(err.Error()))
		}
	}
	time.Sleep(6 * time.Second) // the feed serves records 5 s old (webhook.FeedLag)
	var rru, requests []float64
	seen := map[string]bool{}
	after := ""
	for {
		res, err := e.expect(ctx, t, http.StatusOK, "GET", "/api/campaigns/changes?limit=100&after="+after, nil)
		if err != nil {
			return fig("failed: " + oneLine(err.Error()))
		}
		var body struct {
			Data struct {
				Items []struct {
					ID string `json:"id"`
				} `json:"items"`
				NextCursor string `json:"nextCursor"`
			} `json:"data"`
		}
		if err := res.decode(&body); err != nil {
			return fig("failed: " + oneLine(err.Error()))
		}
		if len(body.Data.Items) == 0 {
			break
		}
		for _, m := range body.Data.Items {
			if seen[m.ID] {
				return fig("failed: message " + m.ID + " on two pages")
			}
			seen[m.ID] = true
		}
		if len(body.Data.Items) == 100 {
			counts := e.last.Load().Counts()
			rru, requests = append(rru, counts.ReadUnits), append(requests, float64(counts.Requests))
		}
		after = body.Data.NextCursor
	}
	if len(rru) == 0 {
		return fig(fmt.Sprintf("failed: no full page among %d messages", len(seen)))
	}
	return fig(fmt.Sprintf("%d full pages of %d messages: median %s RRU in %s requests, most %s RRU",
		len(rru), len(seen), num(medianFloat(rru)), num(medianFloat(requests)), num(slices.Max(rru))))
}
