package dynamo_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/giftcodes"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// digitalFixture is an organization with a digital gift priced 25 (so a
// claim gives back 5 of the 30 credits held), its codes uploaded, and a
// campaign of it with n recipients added.
type digitalFixture struct {
	orgID, giftID, campaignID string
	recipients                []string
}

// Credits of the digital fixture: held per recipient, and what a claim of
// the gift (priced 25) leaves charged.
const (
	digitalHeld  = 30
	digitalPrice = 25
)

func newDigitalFixture(t *testing.T, s *dynamo.Store, org string, n int, codes []giftcodes.Code) digitalFixture {
	t.Helper()
	ctx := context.Background()
	orgID, _ := testenv.Org(t, s, org, int64(n*digitalHeld+100))
	g, err := catalog.NewApp(s).CreateGift(ctx, orgID, catalog.Gift{Name: "Coffee card", Type: catalog.GiftDigital,
		Price: digitalPrice, Currency: "USD", Status: catalog.GiftAvailable})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := giftcodes.NewApp(s, testenv.CodeSecrets(t)).Upload(ctx, orgID, g.GiftID, codes)
	if err != nil || rep.Added != len(codes) {
		t.Fatalf("upload codes: %+v, %v", rep, err)
	}
	c, err := testenv.CreateCampaign(ctx, s, orgID, campaign.Campaign{Name: "E-gifts", CreatedBy: "user-1",
		CampaignData: campaign.Data{GiftIDs: []string{g.GiftID}, EmailTemplateID: "tmpl-meeting-booker", CreditsPerRecipient: digitalHeld}})
	if err != nil {
		t.Fatal(err)
	}
	f := digitalFixture{orgID: orgID, giftID: g.GiftID, campaignID: c.CampaignID}
	for i := range n {
		res, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, fmt.Sprintf("r%02d@example.com", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.recipients = append(f.recipients, res.Response.RecipientID)
	}
	return f
}

func numberedCodes(prefix string, n int) []giftcodes.Code {
	codes := make([]giftcodes.Code, n)
	for i := range codes {
		codes[i] = giftcodes.Code{Code: fmt.Sprintf("%s-%04d", prefix, i), PIN: fmt.Sprintf("%06d", 314159+i)}
	}
	return codes
}

// claimDigital claims f's gift for recipient i, as its claim page does
// (no address).
func (f digitalFixture) claim(s *dynamo.Store, i int) (recipient.Recipient, error) {
	return testenv.Recipients(s).Claim(context.Background(), f.orgID, f.campaignID, f.recipients[i], recipient.ClaimInput{GiftID: f.giftID})
}

// assignedCodes reads the gift's codes as stored and returns, by code id,
// whom each assigned one went to, with how many are still listed as
// available in the Slim index.
func (f digitalFixture) assignedCodes(t *testing.T, s *dynamo.Store) (holders map[string]string, listed int) {
	t.Helper()
	table := s.Table()
	out, err := testenv.Client(t).Query(context.Background(), &dynamodb.QueryInput{
		TableName: &table, KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: "ORG#" + f.orgID}, ":p": &types.AttributeValueMemberS{Value: "GCODE#" + f.giftID + "#"}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	holders = map[string]string{}
	for _, it := range out.Items {
		id := it["SK"].(*types.AttributeValueMemberS).Value[len("GCODE#"+f.giftID+"#"):]
		if a, ok := it["asg"].(*types.AttributeValueMemberS); ok {
			holders[id] = a.Value
		}
		if _, ok := it["LSK"]; ok {
			listed++
		}
	}
	return holders, listed
}

// TestDigitalClaimsRacing: 50 recipients claim a digital gift with 10
// codes at once. Ten are delivered, each with a code of its own; the 40
// others are told the gift is no longer available and stay unclaimed; the
// pool, the gift's units and the wallet agree.
func TestDigitalClaimsRacing(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	f := newDigitalFixture(t, s, "digital-race", 50, numberedCodes("RACE", 10))
	var wg sync.WaitGroup
	got := make([]recipient.Recipient, 50)
	errs := make([]error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() { defer wg.Done(); got[i], errs[i] = f.claim(s, i) }()
	}
	wg.Wait()
	codeOf := map[string]string{}
	unavailable := 0
	for i, err := range errs {
		switch {
		case err == nil:
			r := got[i]
			id := giftcodes.Assigned(r.ShipmentInfo)
			if r.Status != gifting.RecipientDelivered || id == "" || r.Address != nil {
				t.Errorf("claim %d: status %s, shipmentInfo %v, address %v; want delivered with a code, no address", i, r.Status, r.ShipmentInfo, r.Address)
			}
			if other, dup := codeOf[id]; dup {
				t.Errorf("code %s went to %s and %s", id, other, r.RecipientID)
			}
			codeOf[id] = r.RecipientID
		case gifting.ErrorCode(err) == gifting.CodeConflict:
			unavailable++
		default:
			t.Errorf("claim %d: %v", i, err)
		}
	}
	if len(codeOf) != 10 || unavailable != 40 {
		t.Errorf("%d delivered with distinct codes, %d told unavailable; want 10 and 40", len(codeOf), unavailable)
	}
	holders, listed := f.assignedCodes(t, s)
	if len(holders) != 10 || listed != 0 {
		t.Errorf("%d codes stored as assigned, %d still listed; want 10 and 0", len(holders), listed)
	}
	for id, rid := range codeOf {
		if holders[id] != f.campaignID+"#"+rid {
			t.Errorf("code %s is stored as given to %q, the claim said %s", id, holders[id], rid)
		}
	}
	pool, err := s.CodePool(context.Background(), f.orgID, f.giftID)
	if err != nil || pool.Assigned != 10 || pool.Codes != 10 {
		t.Errorf("pool %+v, %v: want 10 codes, 10 assigned", pool, err)
	}
	g, err := catalog.NewApp(s).Gift(context.Background(), f.orgID, f.giftID)
	if err != nil || g.Inventory.Available != 0 || g.Inventory.Total != 10 {
		t.Errorf("gift inventory %+v, %v: want 10 total, 0 available", g.Inventory, err)
	}
	// 50 held 30 each; the 10 delivered got 5 back.
	assertBalance(t, s, f.orgID, 50*digitalHeld+100-50*digitalHeld+10*(digitalHeld-digitalPrice))
}

// TestDigitalClaimLostAnswer loses the answer to the claim's transaction
// (which carries the refund, so its first item is the wallet): the claim
// is sent again, as the recipient's browser would, and answers the code
// the first one assigned; no second code is taken.
func TestDigitalClaimLostAnswer(t *testing.T) {
	t.Parallel()
	for _, ans := range lostAnswers {
		t.Run(ans.name, func(t *testing.T) {
			t.Parallel()
			s, fake := faultStore(t)
			f := newDigitalFixture(t, s, "digital-lost", 1, numberedCodes("LOST", 3))
			fake.arm(1, ans.err)
			first, err := f.claim(s, 0)
			switch {
			case ans.resolved && err != nil:
				t.Fatalf("the claim that happened answered %v", err)
			case !ans.resolved && gifting.ErrorCode(err) != gifting.CodeUnavailable:
				t.Fatalf("claim: %v, want SERVICE_UNAVAILABLE (it may have happened)", err)
			}
			if fake.lost != 1 {
				t.Fatalf("%d answers lost, want 1", fake.lost)
			}
			again, err := f.claim(s, 0)
			if err != nil {
				t.Fatalf("the claim sent again: %v, want the claim as made", err)
			}
			id := giftcodes.Assigned(again.ShipmentInfo)
			if again.Status != gifting.RecipientDelivered || id == "" {
				t.Fatalf("claim sent again: %s %v, want delivered with a code", again.Status, again.ShipmentInfo)
			}
			if ans.resolved && giftcodes.Assigned(first.ShipmentInfo) != id {
				t.Errorf("first answer's code %v, the one sent again %s: want the same", first.ShipmentInfo, id)
			}
			holders, listed := f.assignedCodes(t, s)
			if len(holders) != 1 || holders[id] == "" || listed != 2 {
				t.Errorf("assigned codes %v, %d listed: want %s alone assigned, 2 left", holders, listed, id)
			}
			pool, err := s.CodePool(context.Background(), f.orgID, f.giftID)
			if err != nil || pool.Assigned != 1 {
				t.Errorf("pool %+v, %v: want 1 assigned", pool, err)
			}
			assertBalance(t, s, f.orgID, digitalHeld+100-digitalHeld+(digitalHeld-digitalPrice))
		})
	}
}

// TestDigitalClaimSkipsExpiredCodes: the code that expires first is
// handed out first, and a code past its expiry never is; once only
// expired codes are left the gift is unavailable.
func TestDigitalClaimSkipsExpiredCodes(t *testing.T) {
	t.Parallel()
	var skew atomic.Int64
	s := testenv.Store(t, dynamo.WithClock(func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }))
	now := s.Now()
	soon, later, latest := now.Add(time.Hour), now.Add(48*time.Hour), now.Add(72*time.Hour)
	f := newDigitalFixture(t, s, "digital-expiry", 3, []giftcodes.Code{
		{Code: "LATEST-0003", ExpiresAt: &latest}, {Code: "SOON-0001", ExpiresAt: &soon}, {Code: "LATER-0002", ExpiresAt: &later},
	})
	skew.Store(int64(2 * time.Hour)) // SOON-0001 has expired
	for i, want := range []string{"••••0002", "••••0003"} {
		r, err := f.claim(s, i)
		if err != nil {
			t.Fatalf("claim %d: %v", i, err)
		}
		if r.ShipmentInfo["maskedCode"] != want {
			t.Errorf("claim %d took %v, want %s (the unexpired code that expires first)", i, r.ShipmentInfo["maskedCode"], want)
		}
	}
	if _, err := f.claim(s, 2); gifting.ErrorCode(err) != gifting.CodeConflict {
		t.Errorf("claim with only an expired code left: %v, want CONFLICT (no longer available)", err)
	}
	sum, err := giftcodes.NewApp(s, nil).Summary(context.Background(), f.orgID, f.giftID)
	if err != nil || sum.Assigned != 2 || sum.Expired != 1 || sum.Available != 0 {
		t.Errorf("summary %+v, %v: want 2 assigned, 1 expired, 0 available", sum, err)
	}
	assertBalance(t, s, f.orgID, 3*digitalHeld+100-3*digitalHeld+2*(digitalHeld-digitalPrice))
}
