package pages_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestLandingPageWearsTheTemplateLook: a campaign made from a template
// whose goal sets a logo and a colour shows them on its recipients' pages
// (and its emails) over the organization's branding; one made from a
// template that sets none shows the organization's. The campaign carries
// a copy of the template's look, taken when it is created or edited: a
// template edited later reaches the pages once the campaign is edited. A
// view of such a page reads as much as one of a campaign without a
// template, and no template.
func TestLandingPageWearsTheTemplateLook(t *testing.T) {
	t.Parallel()
	db := &readWatchingDB{DB: testenv.Client(t)}
	f := newFixture(t, db)
	ctx := context.Background()
	if _, err := access.NewApp(f.s).SetBranding(ctx, f.orgID, gifting.Branding{DisplayName: "Acme", LogoURL: "https://cdn.acme.test/logo.png",
		BrandColor: "#0b5394"}); err != nil {
		t.Fatal(err)
	}
	cat := catalog.NewApp(f.s)
	newTemplate := func(goal catalog.Goal) catalog.Template {
		tmpl, err := cat.CreateTemplate(ctx, f.orgID, catalog.Template{TemplateName: "Q4", TemplateData: catalog.TemplateData{Goal: goal}})
		if err != nil {
			t.Fatal(err)
		}
		return tmpl
	}
	campaigns := testenv.Campaigns(f.s)
	view := func(landingPageID string) string {
		page := f.do(t, "GET", "/gift/"+landingPageID, nil)
		if page.status != http.StatusOK {
			t.Fatalf("landing: %d %s", page.status, page.body)
		}
		return page.body
	}
	// landing makes a campaign from tmpl with one recipient and returns the
	// campaign's id and the recipient's landing page id.
	landing := func(tmpl catalog.Template, email string) (string, string) {
		c, _, err := campaigns.Create(ctx, f.orgID, campaign.Campaign{Name: "Q4 thanks", CreatedBy: "user-1", CampaignData: campaign.Data{
			EmailTemplateID: tmpl.TemplateID, GiftIDs: []string{f.cheap.GiftID}, CreditsPerRecipient: f.creditsPerPerson, PriceSet: true}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := testenv.Recipients(f.s).Write(ctx, recipient.AddInput{OrgID: f.orgID, CampaignID: c.CampaignID, SourceType: "api",
			PublicBaseURL: "https://gifts.test", Contact: gifting.ContactInput{MailID: email, FirstName: "Jo"}})
		if err != nil {
			t.Fatal(err)
		}
		return c.CampaignID, res.Recipient.LandingPageID
	}
	wears := func(body, logo, color string) bool {
		return strings.Contains(body, `<img class="logo" src="`+logo+`" alt="Acme">`) && strings.Contains(body, "<style>:root{--brand:"+color+"}</style>")
	}

	q4 := newTemplate(catalog.Goal{Name: "Q4", Logo: "https://cdn.acme.test/q4.png", LogoColor: "#6D28D9"})
	q4Campaign, q4Page := landing(q4, "jo@example.com")
	if body := view(q4Page); !wears(body, "https://cdn.acme.test/q4.png", "#6d28d9") {
		t.Errorf("the landing page of a campaign from a template with a look lacks the template's logo and colour:\n%s", body)
	}
	// The look costs the page no read: a view of it reads as much as a
	// view of a campaign without a template, and no template.
	noTemplate := f.add(t, "ann@example.com").LandingPageID
	view(noTemplate) // both views below are later views
	db.reset()
	view(q4Page)
	q4Reads, templateRead := db.reads.Load(), db.template.Load()
	db.reset()
	view(noTemplate)
	if plainReads := db.reads.Load(); q4Reads != plainReads || templateRead {
		t.Errorf("a view of the page with the template's look made %d reads (a template read: %v), one without a template %d",
			q4Reads, templateRead, plainReads)
	}
	mc, err := f.s.MailContext(ctx, f.orgID, q4Campaign)
	if look := mc.Look(); err != nil || look.Logo != "https://cdn.acme.test/q4.png" || look.Color != "#6d28d9" {
		t.Errorf("the campaign's emails look %+v (%v), want the template's logo and colour as on its pages", look, err)
	}

	plain := newTemplate(catalog.Goal{Name: "Plain"})
	plainCampaign, plainPage := landing(plain, "bo@example.com")
	body := view(plainPage)
	if !wears(body, "https://cdn.acme.test/logo.png", "#0b5394") || strings.Contains(body, "q4.png") {
		t.Errorf("the landing page of a campaign from a template without a look lacks the organization's logo and colour:\n%s", body)
	}

	// The template gains a look: its campaign shows it once edited.
	if _, err := cat.UpdateTemplate(ctx, f.orgID, plain.TemplateID, catalog.TemplatePatch{TemplateData: &catalog.TemplateData{
		Goal: catalog.Goal{Name: "Plain", LogoColor: "#7c2d12"}}}); err != nil {
		t.Fatal(err)
	}
	if body := view(plainPage); !wears(body, "https://cdn.acme.test/logo.png", "#0b5394") {
		t.Errorf("a template edit reached a campaign not edited since:\n%s", body)
	}
	description := "Edited"
	if _, err := campaigns.Update(ctx, f.orgID, plainCampaign, "user-1", campaign.Edit{Description: &description}); err != nil {
		t.Fatal(err)
	}
	if body := view(plainPage); !wears(body, "https://cdn.acme.test/logo.png", "#7c2d12") {
		t.Errorf("after the template and the campaign were edited, the page lacks the template's colour over the organization's logo:\n%s", body)
	}
}

// readWatchingDB counts the read calls made through it and notes whether
// any of them asked for a template.
type readWatchingDB struct {
	dynamo.DB
	reads    atomic.Int64
	template atomic.Bool
}

func (d *readWatchingDB) reset() { d.reads.Store(0); d.template.Store(false) }

// watch counts one read of keys.
func (d *readWatchingDB) watch(keys ...map[string]types.AttributeValue) {
	d.reads.Add(1)
	for _, k := range keys {
		if sk, ok := k["SK"].(*types.AttributeValueMemberS); ok && strings.HasPrefix(sk.Value, "TEMPLATE#") {
			d.template.Store(true)
		}
	}
}

func (d *readWatchingDB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	d.watch(in.Key)
	return d.DB.GetItem(ctx, in, opts...)
}

func (d *readWatchingDB) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	var keys []map[string]types.AttributeValue
	for _, ka := range in.RequestItems {
		keys = append(keys, ka.Keys...)
	}
	d.watch(keys...)
	return d.DB.BatchGetItem(ctx, in, opts...)
}

func (d *readWatchingDB) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	d.watch()
	return d.DB.Query(ctx, in, opts...)
}
