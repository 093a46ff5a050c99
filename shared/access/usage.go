package access

import (
	"context"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Usage is what an organization used in one calendar month (UTC), the
// figures an operator bills by. Each counter is kept by the write it
// counts, in the same transaction (shared/dynamo), so it is exact and
// reading it costs one item, never a scan.
type Usage struct {
	OrgID string `json:"organizationId"`
	// Month is the calendar month, YYYY-MM (UTC).
	Month string `json:"month"`
	// RecipientsAdded counts the recipients created: added one by one or
	// written by a launch.
	RecipientsAdded int64 `json:"recipientsAdded"`
	// CreditsSpent sums the debits of the wallet (gifts charged);
	// CreditsRefunded the refunds, so what was spent net is the
	// difference; CreditsToppedUp the top-ups.
	CreditsSpent    int64 `json:"creditsSpent"`
	CreditsRefunded int64 `json:"creditsRefunded"`
	CreditsToppedUp int64 `json:"creditsToppedUp"`
	// EmailsSent counts the recipient emails recorded as sent.
	EmailsSent int64 `json:"emailsSent"`
	// APICalls counts the authenticated API calls.
	APICalls int64 `json:"apiCalls"`
}

// MonthOf is the usage month of t: its calendar month in UTC.
func MonthOf(t time.Time) string { return t.UTC().Format(monthLayout) }

const monthLayout = "2006-01"

// ParseMonth returns the usage month the query parameter month names:
// YYYY-MM, or the month of now when empty. Errors: VALIDATION_FAILED.
func ParseMonth(month string, now time.Time) (string, error) {
	if month == "" {
		return MonthOf(now), nil
	}
	t, err := time.Parse(monthLayout, month)
	if err != nil || t.Format(monthLayout) != month || t.Year() < 2000 {
		var p gifting.Problems
		p.Add("month", "must be a month as YYYY-MM, such as 2026-11")
		return "", p.Err()
	}
	return month, nil
}

// Usage returns orgID's usage in month ("" for the current one): zeros
// for a month it used nothing in. Errors: VALIDATION_FAILED (ParseMonth).
func (a *App) Usage(ctx context.Context, orgID, month string) (Usage, error) {
	m, err := ParseMonth(month, a.store.Now())
	if err != nil {
		return Usage{}, err
	}
	return a.store.Usage(ctx, orgID, m)
}

// CountCall counts one authenticated API call of orgID in the current
// month.
func (a *App) CountCall(ctx context.Context, orgID string) error {
	return a.store.CountCall(ctx, orgID, MonthOf(a.store.Now()))
}
