package contact

import (
	"context"
	"sort"
)

// Candidate is one item of a bulk add as its transport decoded it (a JSON
// object, a CSV row): the input, or why the item cannot be one (a mailId
// and an email that differ, a cell that cannot be read).
type Candidate struct {
	Input Input
	Err   error
}

// AddCandidates is the bulk add of decoded items, shared by every way
// contacts arrive (the JSON bulk add, a CSV import's batches): the items
// that failed to decode fail alone, the others go through AddToList's
// merge rules, and the results come back in the items' order, indexed
// from 0. Errors: those of AddToList (NOT_FOUND: the list).
func (a *App) AddCandidates(ctx context.Context, orgID, listID string, cands []Candidate, src Source) (BulkResult, error) {
	var (
		inputs []Input
		at     []int // the index of each input among cands
		items  []Item
	)
	for i, c := range cands {
		if c.Err != nil {
			items = append(items, Failed(i, "", c.Err))
			continue
		}
		inputs, at = append(inputs, c.Input), append(at, i)
	}
	stored, err := a.AddToList(ctx, orgID, listID, inputs, src)
	if err != nil {
		return BulkResult{}, err
	}
	for _, it := range stored.Items {
		it.Index = at[it.Index]
		items = append(items, it)
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Index < items[j].Index })
	var res BulkResult
	for _, it := range items {
		res.Add(it)
	}
	return res, nil
}
