package catalog_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
)

func TestOwners(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	for _, tt := range []struct {
		name          string
		isDelightloop *bool
		want          []string
	}{
		{"both, the organization's first", nil, []string{"acme", gifting.CatalogOrgID}},
		{"the service catalog's only", &yes, []string{gifting.CatalogOrgID}},
		{"the organization's own only", &no, []string{"acme"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := catalog.Owners("acme", tt.isDelightloop); !slices.Equal(got, tt.want) {
				t.Errorf("owners = %v, want %v", got, tt.want)
			}
		})
	}
}

func giftIDs(gs []catalog.Gift) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.GiftID
	}
	return out
}

func TestSelectGifts(t *testing.T) {
	t.Parallel()
	all := []catalog.Gift{
		{GiftID: "h2", Name: "Acme Hoodie 2", Status: catalog.GiftAvailable, CollectionIDs: []string{"swag"}},
		{GiftID: "h1", Name: "Acme Hoodie 1", Status: catalog.GiftPending, CollectionIDs: []string{"swag"}},
		{GiftID: "coffee", Name: "Artisan Coffee", Status: catalog.GiftAvailable},
	}
	page := func(n, limit int) gifting.PageRequest { return gifting.PageRequest{Page: n, Limit: limit} }
	for _, tt := range []struct {
		name      string
		f         catalog.GiftFilter
		page      gifting.PageRequest
		want      []string
		wantTotal int
	}{
		{"all, in the order read", catalog.GiftFilter{}, page(1, 12), []string{"h2", "h1", "coffee"}, 3},
		{"search, case-insensitive", catalog.GiftFilter{Search: " COFFEE "}, page(1, 12), []string{"coffee"}, 1},
		{"by status", catalog.GiftFilter{Status: catalog.GiftPending}, page(1, 12), []string{"h1"}, 1},
		{"by collection", catalog.GiftFilter{CollectionID: "swag"}, page(1, 12), []string{"h2", "h1"}, 2},
		{"a page", catalog.GiftFilter{}, page(2, 2), []string{"coffee"}, 3},
		{"nothing kept", catalog.GiftFilter{Search: "tea"}, page(1, 12), []string{}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, total := catalog.SelectGifts(all, tt.f, tt.page)
			if !slices.Equal(giftIDs(got), tt.want) || total != tt.wantTotal {
				t.Errorf("select = %v of %d, want %v of %d", giftIDs(got), total, tt.want, tt.wantTotal)
			}
		})
	}
}

func TestSelectTemplates(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var all []catalog.Template
	for i, name := range []string{"beta", "Alpha", "gamma"} {
		all = append(all, catalog.Template{TemplateID: fmt.Sprint("t", i), TemplateName: name, TemplateCategory: "Retention",
			SuccessRate: float64(30 - 10*i), CreatedAt: at.Add(time.Duration(i) * time.Hour), UpdatedAt: at.Add(time.Duration(2-i) * time.Hour)})
	}
	all = append(all, catalog.Template{TemplateID: "t3", TemplateName: "Welcome", TemplateCategory: "onboarding", CreatedAt: at})
	ids := func(ts []catalog.Template) []string {
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = t.TemplateID
		}
		return out
	}
	page := gifting.PageRequest{Page: 1, Limit: 12}
	for _, tt := range []struct {
		name string
		f    catalog.TemplateFilter
		want []string
	}{
		{"newest first by default, ties by id", catalog.TemplateFilter{Order: gifting.Desc}, []string{"t2", "t1", "t3", "t0"}},
		{"by name, case-insensitive", catalog.TemplateFilter{SortBy: "templateName", Order: gifting.Asc}, []string{"t1", "t0", "t2", "t3"}},
		{"by success rate", catalog.TemplateFilter{SortBy: "successRate", Order: gifting.Desc}, []string{"t0", "t1", "t2", "t3"}},
		{"by updatedAt", catalog.TemplateFilter{SortBy: "updatedAt", Order: gifting.Asc}, []string{"t3", "t2", "t1", "t0"}},
		{"category, case-insensitive", catalog.TemplateFilter{Category: "retention", Order: gifting.Asc}, []string{"t0", "t1", "t2"}},
		{"search", catalog.TemplateFilter{Search: "ALP"}, []string{"t1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, total := catalog.SelectTemplates(all, tt.f, page)
			if !slices.Equal(ids(got), tt.want) || total != len(tt.want) {
				t.Errorf("select = %v of %d, want %v", ids(got), total, tt.want)
			}
		})
	}
}
