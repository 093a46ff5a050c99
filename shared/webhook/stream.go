package webhook

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// recordWorkers is how many organizations' change records HandleRecords
// hands on at once.
const recordWorkers = 16

// HandleRecords hands recs to h: one organization's records one after
// another, in the order given, so its webhooks keep commit order;
// different organizations' side by side, recordWorkers at once. A record's
// handler waits for its deliveries' first attempts (up to a receiver's
// timeout), so taking every record in turn would let one organization's
// slow or silent receiver, or its burst of changes, hold back every other
// organization's webhooks. It returns each record's error, aligned with
// recs. After an organization's record fails, its later records are not
// handed on and report that error too, so they are given again after it,
// in order.
func HandleRecords(ctx context.Context, h RecordHandler, recs []Record) []error {
	errs := make([]error, len(recs))
	byOrg := map[string][]int{}
	var orgs []string
	for i, r := range recs {
		if byOrg[r.OrgID] == nil {
			orgs = append(orgs, r.OrgID)
		}
		byOrg[r.OrgID] = append(byOrg[r.OrgID], i)
	}
	var g errgroup.Group
	g.SetLimit(recordWorkers)
	for _, org := range orgs {
		g.Go(func() error {
			var failed error
			for _, i := range byOrg[org] {
				if failed == nil {
					failed = h(ctx, recs[i])
				}
				errs[i] = failed
			}
			return nil
		})
	}
	_ = g.Wait() // the goroutines report through errs
	return errs
}
