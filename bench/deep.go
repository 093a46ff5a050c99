package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
)

// deepPages compares page 1 and page 50 (limit 100) of GET /contacts over n
// contacts.
//
// Importing 100,000 contacts through the API takes DynamoDB Local several
// minutes, which would not leave the whole benchmark inside its 10
// minutes; the import itself is measured over 10,000 contacts. So 100
// contacts are imported through the API, and the other contacts are copies
// of the contact items that import wrote (as the metered client recorded
// them), each with a new id and email, written with BatchWriteItem; the
// contact counter is moved by the same recorded update. The copies carry
// everything a contacts page reads; what they lack (email markers, list
// memberships) no page reads. The pages are then read through the API,
// which checks the copies: the total and both pages must come back whole.
func deepPages(ctx context.Context, e *env, n int) []systemFigure {
	fig := func(measured, verdict string) []systemFigure {
		return []systemFigure{{figure: fmt.Sprintf("GET /contacts?limit=100 with %d contacts: read units of page 50 against page 1", n),
			measured: measured, target: "page 1's units + ≤ 1 RRU per 40 contacts skipped", verdict: verdict}}
	}
	t, err := e.newTenant(ctx, "deep", 0)
	if err != nil {
		return fig("failed: "+oneLine(err.Error()), "")
	}
	loadStart := time.Now()
	if err := cloneContacts(ctx, e, t, n); err != nil {
		return fig("failed to load the contacts: "+oneLine(err.Error()), "")
	}
	loaded := time.Since(loadStart)
	type pageFigures struct {
		rru, requests []float64
		took          []time.Duration
		first         string
	}
	pages := map[int]*pageFigures{1: {}, 50: {}}
	for range 3 {
		for _, p := range []int{1, 50} {
			start := time.Now()
			res, err := e.expect(ctx, t, http.StatusOK, "GET", fmt.Sprintf("/api/campaigns/contacts?page=%d&limit=100", p), nil)
			if err != nil {
				return fig("failed: "+oneLine(err.Error()), "")
			}
			took := time.Since(start)
			var body struct {
				Items []struct {
					ContactID string `json:"contactId"`
				} `json:"items"`
				Total int `json:"total"`
			}
			if err := res.decode(&body); err != nil {
				return fig("failed: "+oneLine(err.Error()), "")
			}
			if body.Total != n || len(body.Items) != 100 {
				return fig(fmt.Sprintf("failed: page %d has %d items of a total of %d; want 100 of %d", p, len(body.Items), body.Total, n), "")
			}
			counts := e.last.Load().Counts()
			f := pages[p]
			f.rru, f.requests, f.took, f.first = append(f.rru, counts.ReadUnits), append(f.requests, float64(counts.Requests)), append(f.took, took), body.Items[0].ContactID
		}
	}
	if pages[1].first == pages[50].first {
		return fig("failed: page 50 starts with the same contact as page 1", "")
	}
	p1, p50 := medianFloat(pages[1].rru), medianFloat(pages[50].rru)
	skipped := 49 * 100
	limit := p1 + float64(skipped)/40
	figures := fig(fmt.Sprintf("page 1: %s RRU in %s requests, %s; page 50: %s RRU in %s requests, %s; bound for page 50: %.1f RRU (%d skipped). Contacts loaded in %.0f s",
		num(p1), num(medianFloat(pages[1].requests)), ms(median(pages[1].took)), num(p50), num(medianFloat(pages[50].requests)), ms(median(pages[50].took)),
		limit, skipped, loaded.Seconds()), verdict(p50 <= limit))
	return append(figures, searchFigure(ctx, e, t, n))
}

// searchFigure measures one free-text search of GET /contacts over n
// contacts. Every search reads the whole Slim partition of the contacts
// (their small index entries, never the items), whatever it matches; the
// term matches nothing, so the figure is that read alone.
func searchFigure(ctx context.Context, e *env, t tenant, n int) systemFigure {
	f := systemFigure{figure: fmt.Sprintf("GET /contacts?search=… with %d contacts: read units of a search", n),
		target: "— (documented: a search reads the contacts' Slim entries, ~1 RRU per 35–50 contacts)"}
	var rru, requests []float64
	var took []time.Duration
	for range 3 {
		start := time.Now()
		if _, err := e.expect(ctx, t, http.StatusOK, "GET", "/api/campaigns/contacts?search=zzqx&limit=100", nil); err != nil {
			f.measured = "failed: " + oneLine(err.Error())
			return f
		}
		took = append(took, time.Since(start))
		counts := e.last.Load().Counts()
		rru, requests = append(rru, counts.ReadUnits), append(requests, float64(counts.Requests))
	}
	f.measured = fmt.Sprintf("%s RRU (1 per %.0f contacts) in %s requests, %s",
		num(medianFloat(rru)), float64(n)/medianFloat(rru), num(medianFloat(requests)), ms(median(took)))
	return f
}

// cloneContacts gives t n contacts: 100 imported through the API, the rest
// copied from them.
func cloneContacts(ctx context.Context, e *env, t tenant, n int) error {
	listID, err := e.createList(ctx, t, "Deep pages")
	if err != nil {
		return err
	}
	if _, _, err := e.importContacts(ctx, t, listID, "deep", 0, 100, 1); err != nil {
		return err
	}
	var (
		templates []map[string]types.AttributeValue
		counter   *types.Update
	)
	for _, c := range e.last.Load().Calls() {
		var writes []types.TransactWriteItem
		switch in := c.Input.(type) {
		case *dynamodb.TransactWriteItemsInput:
			writes = in.TransactItems
		case *dynamodb.PutItemInput:
			// A new contact is a plain put.
			writes = []types.TransactWriteItem{{Put: &types.Put{TableName: in.TableName, Item: in.Item}}}
		case *dynamodb.UpdateItemInput:
			// The counters move once per chunk, outside any transaction.
			writes = []types.TransactWriteItem{{Update: &types.Update{TableName: in.TableName, Key: in.Key,
				UpdateExpression: in.UpdateExpression, ExpressionAttributeNames: in.ExpressionAttributeNames,
				ExpressionAttributeValues: in.ExpressionAttributeValues}}}
		case *dynamodb.BatchExecuteStatementInput:
			// New contacts go as batches of INSERTs, the chunk's counters
			// as a batch of UPDATEs (ADD n to COUNT#CONTACT).
			for _, st := range in.Statements {
				if it, ok := dynamo.InsertedItem(st); ok {
					writes = append(writes, types.TransactWriteItem{Put: &types.Put{TableName: &e.table, Item: it}})
				} else if k, ok := dynamo.UpdatedKey(st); ok {
					writes = append(writes, types.TransactWriteItem{Update: &types.Update{TableName: &e.table, Key: k,
						UpdateExpression: aws.String("ADD n :d")}})
				}
			}
		}
		for _, it := range writes {
			switch {
			case it.Put != nil && it.Put.Item["mailId"] != nil && it.Put.Item["contactId"] != nil:
				templates = append(templates, it.Put.Item)
			case it.Update != nil && attrString(it.Update.Key["SK"]) == "COUNT#CONTACT" && counter == nil:
				counter = it.Update
			}
		}
	}
	if len(templates) != 100 || counter == nil {
		return fmt.Errorf("the import's writes were not recognised (%d contact items, counter %v): the store's layout changed; update bench/deep.go", len(templates), counter != nil)
	}
	copies := n - 100
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
	for k := range copies {
		tpl := templates[k%len(templates)]
		oldID, oldMail := attrString(tpl["contactId"]), attrString(tpl["mailId"])
		pairs := []string{oldID, gifting.NewID(), oldMail, fmt.Sprintf("copy%d.deep@example.com", k)}
		if _, ord, ok := strings.Cut(attrString(tpl["LSK"]), "#"); ok && ord != oldID {
			// The creation-ordered key of the contacts page's index entry.
			pairs = append(pairs, ord, gifting.NewID())
		}
		r := strings.NewReplacer(pairs...)
		select {
		case items <- replaceStrings(tpl, r):
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
	up := *counter
	up.ExpressionAttributeValues = map[string]types.AttributeValue{}
	for k, v := range counter.ExpressionAttributeValues {
		up.ExpressionAttributeValues[k] = v
	}
	up.ExpressionAttributeValues[":d"] = &types.AttributeValueMemberN{Value: strconv.Itoa(copies)}
	_, err = e.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: up.TableName, Key: up.Key, UpdateExpression: up.UpdateExpression,
		ExpressionAttributeNames: up.ExpressionAttributeNames, ExpressionAttributeValues: up.ExpressionAttributeValues,
	})
	return err
}

// batchWrite writes items in batches of 25, retrying unprocessed ones.
func batchWrite(ctx context.Context, e *env, items <-chan map[string]types.AttributeValue) error {
	var batch []types.WriteRequest
	flush := func() error {
		for len(batch) > 0 {
			out, err := e.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{e.table: batch}})
			if err != nil {
				return err
			}
			batch = out.UnprocessedItems[e.table]
		}
		return nil
	}
	for it := range items {
		batch = append(batch, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		if len(batch) == 25 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// replaceStrings copies an item, replacing text in every string value.
func replaceStrings(it map[string]types.AttributeValue, r *strings.Replacer) map[string]types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(it))
	for k, v := range it {
		out[k] = replaceValue(v, r)
	}
	return out
}

func replaceValue(v types.AttributeValue, r *strings.Replacer) types.AttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: r.Replace(v.Value)}
	case *types.AttributeValueMemberM:
		return &types.AttributeValueMemberM{Value: replaceStrings(v.Value, r)}
	case *types.AttributeValueMemberL:
		l := make([]types.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = replaceValue(e, r)
		}
		return &types.AttributeValueMemberL{Value: l}
	case *types.AttributeValueMemberSS:
		ss := make([]string, len(v.Value))
		for i, s := range v.Value {
			ss[i] = r.Replace(s)
		}
		return &types.AttributeValueMemberSS{Value: ss}
	}
	return v
}

func attrString(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}
