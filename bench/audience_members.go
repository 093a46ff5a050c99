package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// audienceMemberFigures measures pages of GET
// /audience-lists/{id}/contacts over the chain's audience of members
// members: each order's first and a deep page, and two searches (one
// whose longest word is rare, one whose longest word every member has),
// read from the order and search entries, and the same calls read the
// way an audience built before those entries is read (the whole index
// partition, sorted in memory: the code before issue 30), by taking the
// audience's mark away for the second pass and putting it back after.
func audienceMemberFigures(ctx context.Context, e *env, t tenant, audienceID string, members int) []systemFigure {
	deep := max(2, members/4/10) // a page a quarter of the way in, pages of 10
	calls := []struct{ name, query string }{
		{"createdAt, page 1", "limit=10"},
		{fmt.Sprintf("createdAt, page %d", deep), fmt.Sprintf("limit=10&page=%d", deep)},
		{"updatedAt, page 1", "sortBy=updatedAt&limit=10"},
		{fmt.Sprintf("updatedAt, page %d", deep), fmt.Sprintf("sortBy=updatedAt&limit=10&page=%d", deep)},
		{fmt.Sprintf("contactId, page %d", deep), fmt.Sprintf("sortBy=contactId&limit=10&page=%d", deep)},
		{"search=first12 (a rare word)", "search=first12&limit=10"},
		{"search=company 7 (its longest word is every member's)", "search=" + url.QueryEscape("company 7") + "&limit=10"},
	}
	path := "/api/campaigns/audience-lists/" + audienceID + "/contacts?"
	measure := func(query string) (string, string, error) {
		var rru, requests []float64
		var took []time.Duration
		body := ""
		for range 3 {
			start := time.Now()
			res, err := e.expect(ctx, t, http.StatusOK, "GET", path+query, nil)
			if err != nil {
				return "", "", err
			}
			took = append(took, time.Since(start))
			counts := e.last.Load().Counts()
			rru, requests, body = append(rru, counts.ReadUnits), append(requests, float64(counts.Requests)), string(res.body)
		}
		return fmt.Sprintf("%s RRU, %s req., %s", num(medianFloat(rru)), num(medianFloat(requests)), ms(median(took))), body, nil
	}
	now := make([]string, len(calls))
	bodies := make([]string, len(calls))
	for i, c := range calls {
		var err error
		if now[i], bodies[i], err = measure(c.query); err != nil {
			return []systemFigure{{figure: "audience members pages", measured: "failed: " + oneLine(err.Error())}}
		}
	}
	if err := e.markAudience(ctx, t, audienceID, false); err != nil {
		return []systemFigure{{figure: "audience members pages", measured: "failed: " + oneLine(err.Error())}}
	}
	defer func() { _ = e.markAudience(context.WithoutCancel(ctx), t, audienceID, true) }()
	var figs []systemFigure
	for i, c := range calls {
		whole, body, err := measure(c.query)
		if err != nil {
			whole = "failed: " + oneLine(err.Error())
		} else if body != bodies[i] {
			whole += " (**a different answer**)"
		}
		figs = append(figs, systemFigure{
			figure:   fmt.Sprintf("GET /audience-lists/{id}/contacts %s, %d members: from the order and search entries; before, from the whole partition", c.name, members),
			measured: now[i] + "; before: " + whole,
		})
	}
	return figs
}

// markAudience sets or removes the mark of an audience whose members have
// their order and search entries (memberIndex, shared/dynamo).
func (e *env) markAudience(ctx context.Context, t tenant, audienceID string, on bool) error {
	expr := "REMOVE memberIndex"
	var values map[string]types.AttributeValue
	if on {
		expr, values = "SET memberIndex = :v", map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "1"}}
	}
	_, err := e.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(e.table),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "ORG#" + t.orgID}, "SK": &types.AttributeValueMemberS{Value: "AUDIENCE#" + audienceID},
		},
		UpdateExpression: aws.String(expr), ExpressionAttributeValues: values,
	})
	if err != nil {
		return fmt.Errorf("mark audience %s: %w", audienceID, err)
	}
	return nil
}
