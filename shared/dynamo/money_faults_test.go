package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// lostWalletAnswerDB applies the next armed wallet transactions (those whose
// first item updates a wallet: every balance change) to DynamoDB Local and
// then answers the caller with err instead of their outcome: DynamoDB did
// the work, the answer never arrived. A transaction DynamoDB refused is
// answered as it was (nothing was lost). With first set, it loses instead
// the answers of the transactions whose first item (an update or a delete)
// has a sort key starting with first.
type lostWalletAnswerDB struct {
	dynamo.DB
	first string
	mu    sync.Mutex
	lose  int
	err   func() error
	lost  int
}

func (d *lostWalletAnswerDB) arm(n int, err func() error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lose, d.err, d.lost = n, err, 0
}

func (d *lostWalletAnswerDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := d.DB.TransactWriteItems(ctx, in, opts...)
	if err != nil || !d.loses(in.TransactItems[0]) {
		return out, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lose == 0 {
		return out, nil
	}
	d.lose--
	d.lost++
	return nil, d.err()
}

// loses reports whether the answer of a transaction whose first item is
// first may be lost.
func (d *lostWalletAnswerDB) loses(first types.TransactWriteItem) bool {
	var k map[string]types.AttributeValue
	switch {
	case first.Update != nil:
		k = first.Update.Key
	case first.Delete != nil && d.first != "":
		k = first.Delete.Key
	default:
		return false
	}
	sk := k["SK"].(*types.AttributeValueMemberS).Value
	if d.first == "" {
		return sk == "WALLET"
	}
	return strings.HasPrefix(sk, d.first)
}

// lostAnswers are the ways the answer to an applied transaction goes
// missing. resolved says whether the store can still learn the outcome
// before it answers: the SDK's retries of a lost answer met the first
// request still in progress (same ClientRequestToken), and a resend with
// that token returns its outcome. When the SDK gave up (the connection
// kept failing), the caller gets SERVICE_UNAVAILABLE, which docs/api.md says
// may have happened: its retry must find it done, never do it again.
var lostAnswers = []struct {
	name     string
	err      func() error
	resolved bool
}{
	{"the SDK's retries found it in progress", func() error {
		return &types.TransactionInProgressException{Message: aws.String("a transaction with this ClientRequestToken is in progress")}
	}, true},
	{"the SDK gave up on a reset connection", func() error {
		return &smithyhttp.RequestSendError{Err: errors.New("read tcp 10.0.0.1:443: connection reset by peer")}
	}, false},
}

// faultStore is a store over a fresh table whose client loses answers.
func faultStore(t *testing.T) (*dynamo.Store, *lostWalletAnswerDB) {
	t.Helper()
	fake := &lostWalletAnswerDB{DB: testenv.Client(t)}
	s := dynamo.New(fake, testenv.Table(t))
	if _, err := seed.SeedCatalog(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return s, fake
}

// assertBalance checks the wallet's balance and that its ledger adds up.
func assertBalance(t *testing.T, s *dynamo.Store, orgID string, want int64) {
	t.Helper()
	w, err := s.Wallet(context.Background(), orgID)
	if err != nil {
		t.Fatal(err)
	}
	if w.Balance != want {
		t.Errorf("balance %d, want %d", w.Balance, want)
	}
	testenv.AssertLedgerBalanced(t, s, orgID)
}

// addedResponse is the add-recipient response a caller gets: the one
// written now or the stored one replayed.
func addedResponse(t *testing.T, res recipient.AddResult) recipient.Added {
	t.Helper()
	if res.Replay != nil {
		return replayed(t, res)
	}
	return res.Response
}

func TestAddRecipientLostAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, ans := range lostAnswers {
		t.Run(ans.name, func(t *testing.T) {
			t.Parallel()
			s, fake := faultStore(t)
			for _, keyed := range []bool{false, true} {
				t.Run(fmt.Sprintf("idempotency key %v", keyed), func(t *testing.T) {
					orgID, _ := testenv.Org(t, s, fmt.Sprintf("add-%v", keyed), 100)
					c := giftCampaign(t, s, orgID, 10)
					in := addInput(orgID, c.CampaignID, "jane@example.com")
					if keyed {
						in.Idempotency = addIdempotent("k1", "h1")
					}
					fake.arm(1, ans.err)
					res, err := testenv.Recipients(s).Write(ctx, in)
					switch {
					case ans.resolved:
						if err != nil {
							t.Fatalf("the add that happened answered %v", err)
						}
						if got := addedResponse(t, res); got.RemainingBalance != 90 || got.CreditsDeducted != 10 {
							t.Errorf("answer %+v, want 10 deducted and 90 left", got)
						}
					case gifting.ErrorCode(err) != gifting.CodeUnavailable:
						t.Fatalf("err = %v, want SERVICE_UNAVAILABLE", err)
					default:
						// The caller's retry of the same request.
						res, err = testenv.Recipients(s).Write(ctx, in)
						if keyed {
							if err != nil || res.Replay == nil || replayed(t, res).RemainingBalance != 90 {
								t.Errorf("retry with the key: %+v, %v; want the stored answer, 90 left", res.Replay, err)
							}
						} else if gifting.ErrorCode(err) != gifting.CodeConflict {
							t.Errorf("retry without a key: %v; want CONFLICT, already a recipient", err)
						}
					}
					if n := countItems(t, s, orgID, "RCPT#"+c.CampaignID+"#"); n != 1 {
						t.Errorf("%d recipients, want 1", n)
					}
					assertBalance(t, s, orgID, 90)
				})
			}
		})
	}
}

// TestLaunchLostAnswer launches a campaign that takes the whole wallet
// under an Idempotency-Key and loses the launch's answer.
func TestLaunchLostAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, ans := range lostAnswers {
		t.Run(ans.name, func(t *testing.T) {
			t.Parallel()
			s, fake := faultStore(t)
			orgID, c := launchFixture(t, s, 100) // 100 contacts × 10 credits: the whole 1,000
			idem := &gifting.Idempotent[campaign.Launch]{
				Key: gifting.IdempotencyKey{Scope: "launch", Key: "k1", Hash: "h1"}, Status: http.StatusAccepted,
				Render: func(l campaign.Launch) ([]byte, error) { return fmt.Appendf(nil, "%d", l.RemainingBalance), nil },
			}
			fake.arm(1, ans.err)
			l, stored, err := testenv.Campaigns(s).Launch(ctx, orgID, c.CampaignID, "user-1", idem)
			switch {
			case ans.resolved:
				if err != nil {
					t.Fatalf("the launch that happened answered %v", err)
				}
				if stored == nil && (l.CreditsDeducted != 1000 || l.RemainingBalance != 0) {
					t.Errorf("answer %+v, want 1000 deducted and 0 left", l)
				}
			case gifting.ErrorCode(err) != gifting.CodeUnavailable:
				t.Fatalf("err = %v, want SERVICE_UNAVAILABLE", err)
			default:
				_, stored, err = testenv.Campaigns(s).Launch(ctx, orgID, c.CampaignID, "user-1", idem)
				if err != nil || stored == nil || stored.Status != http.StatusAccepted || string(stored.Body) != "0" {
					t.Errorf("retry with the key: %+v, %v; want the stored 202", stored, err)
				}
			}
			assertBalance(t, s, orgID, 0)
			runSlicesTwice(t, s, orgID, c.CampaignID, nil)
			assertBalance(t, s, orgID, 0)
		})
	}
}

// TestLaunchFinishLostAnswer loses the answer to a launch's finish, which
// refunds the contact deleted before its slice ran; the job runs again
// (SQS, or the scheduler's tick).
func TestLaunchFinishLostAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, ans := range lostAnswers {
		t.Run(ans.name, func(t *testing.T) {
			t.Parallel()
			s, fake := faultStore(t)
			orgID, c := launchFixture(t, s, 5)
			if _, err := testenv.LaunchCampaign(ctx, s, orgID, c.CampaignID, "user-1"); err != nil {
				t.Fatal(err)
			}
			ids, err := contact.NewApp(s, nil).MemberIDs(ctx, orgID, c.CampaignData.ContactListIDs[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := contact.NewApp(s, nil).DeleteContact(ctx, orgID, ids[0]); err != nil {
				t.Fatal(err)
			}
			fake.arm(1, ans.err)
			cursor, failed := "", 0
			for step := 0; ; step++ {
				if step > 10 {
					t.Fatal("the launch job does not finish")
				}
				next, done, err := testenv.Campaigns(s).LaunchSlice(ctx, orgID, c.CampaignID, cursor)
				if err != nil {
					failed++ // the job's message comes back: run the same step again
					continue
				}
				if done {
					break
				}
				cursor = next
			}
			if fake.lost != 1 || (ans.resolved && failed != 0) {
				t.Errorf("%d answers lost, %d failed runs; want 1 lost and, when the store can learn the outcome, no failed run", fake.lost, failed)
			}
			assertLaunched(t, s, orgID, c.CampaignID, 4)
			assertBalance(t, s, orgID, 960)
		})
	}
}

// TestClaimLostAnswer loses the answer to a claim of a gift that costs
// less than the credits held for the recipient (its refund is the
// difference).
func TestClaimLostAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	claim := recipient.ClaimInput{GiftID: "gift-artisan-coffee", ShippingAddress: recipient.ShippingAddress{
		Line1: "1 Main Street", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}}
	for _, ans := range lostAnswers {
		t.Run(ans.name, func(t *testing.T) {
			t.Parallel()
			s, fake := faultStore(t)
			orgID, _ := testenv.Org(t, s, "claim", 100)
			c := giftCampaign(t, s, orgID, 40) // the coffee costs 35: 5 back
			testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
			res, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "jane@example.com"))
			if err != nil {
				t.Fatal(err)
			}
			rid := res.Response.RecipientID
			fake.arm(1, ans.err)
			r, err := testenv.Recipients(s).Claim(ctx, orgID, c.CampaignID, rid, claim)
			switch {
			case ans.resolved:
				if err != nil || r.CreditsCharged != 35 {
					t.Fatalf("the claim that happened answered %v (charged %d); want the claim, 35 charged", err, r.CreditsCharged)
				}
			case gifting.ErrorCode(err) != gifting.CodeUnavailable:
				t.Fatalf("err = %v, want SERVICE_UNAVAILABLE", err)
			default:
				// The recipient submits the page again: claimed once.
				if _, err := testenv.Recipients(s).Claim(ctx, orgID, c.CampaignID, rid, claim); gifting.ErrorCode(err) != gifting.CodeConflict {
					t.Errorf("the claim again: %v; want CONFLICT, already claimed", err)
				}
			}
			got, err := s.Recipient(ctx, orgID, c.CampaignID, rid)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Claimed() || got.CreditsCharged != 35 {
				t.Errorf("recipient claimed %v with %d credits charged; want claimed, 35", got.Claimed(), got.CreditsCharged)
			}
			assertBalance(t, s, orgID, 65)
		})
	}
}

// TestExpiryLostAnswer loses the answer to the refund of an unclaimed
// recipient of a completed campaign; the expiry job runs again.
func TestExpiryLostAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, ans := range lostAnswers {
		t.Run(ans.name, func(t *testing.T) {
			t.Parallel()
			s, fake := faultStore(t)
			orgID, _ := testenv.Org(t, s, "expiry", 100)
			c := giftCampaign(t, s, orgID, 40)
			res, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "jane@example.com"))
			if err != nil {
				t.Fatal(err)
			}
			rid := res.Response.RecipientID
			fake.arm(1, ans.err)
			expired, err := testenv.Recipients(s).Expire(ctx, orgID, c.CampaignID, rid, false)
			switch {
			case ans.resolved:
				if err != nil || !expired {
					t.Fatalf("the expiry that happened answered %v, %v; want expired", expired, err)
				}
			case gifting.ErrorCode(err) != gifting.CodeUnavailable:
				t.Fatalf("err = %v, want SERVICE_UNAVAILABLE", err)
			default:
				if expired, err := testenv.Recipients(s).Expire(ctx, orgID, c.CampaignID, rid, false); err != nil || expired {
					t.Errorf("the job again: %v, %v; want nothing left to do", expired, err)
				}
			}
			got, err := s.Campaign(ctx, orgID, c.CampaignID)
			if err != nil {
				t.Fatal(err)
			}
			if got.LiveData.CreditsSpent != 0 || got.LiveData.StatusCounts[gifting.RecipientExpired] != 1 {
				t.Errorf("campaign spent %d with %d expired; want 0 and 1", got.LiveData.CreditsSpent, got.LiveData.StatusCounts[gifting.RecipientExpired])
			}
			assertBalance(t, s, orgID, 100)
		})
	}
}

// TestTopUpLostAnswer loses the answer to an operator's top-up; the
// operator runs the same command again.
func TestTopUpLostAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, ans := range lostAnswers {
		t.Run(ans.name, func(t *testing.T) {
			t.Parallel()
			s, fake := faultStore(t)
			orgID, _ := testenv.Org(t, s, "topup", 100)
			req := wallet.TopUpRequest{OrgID: orgID, RequestID: "inv-1", Credits: 50, Reason: "invoice 1"}
			fake.arm(1, ans.err)
			res, err := wallet.NewApp(s).TopUpOnce(ctx, req)
			switch {
			case ans.resolved:
				if err != nil || res.Replayed || res.Wallet.Balance != 150 {
					t.Fatalf("the top-up that happened answered %+v, %v; want applied now (not a replay), 150", res, err)
				}
			case gifting.ErrorCode(err) != gifting.CodeUnavailable:
				t.Fatalf("err = %v, want SERVICE_UNAVAILABLE", err)
			default:
				if res, err := wallet.NewApp(s).TopUpOnce(ctx, req); err != nil || !res.Replayed || res.Wallet.Balance != 150 {
					t.Errorf("the command again: %+v, %v; want a replay, 150", res, err)
				}
			}
			assertBalance(t, s, orgID, 150)
		})
	}
}

// cancellingWalletDB, once armed, cancels wallet transactions without
// applying them, as DynamoDB does: the k-th with code as the reason of its
// item k, every other reason None, until each item has had its turn, so
// one balance change meets the fault on each of its items. With top set,
// it answers the first with top instead, a fault of the whole request.
type cancellingWalletDB struct {
	dynamo.DB
	mu    sync.Mutex
	armed bool
	code  string
	top   func() error
	seen  int // transactions failed since armed
	size  int // items of the last one failed
}

func (d *cancellingWalletDB) arm(code string, top func() error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.armed, d.code, d.top, d.seen, d.size = true, code, top, 0, 0
}

func (d *cancellingWalletDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	u := in.TransactItems[0].Update
	d.mu.Lock()
	fail := d.armed && u != nil && u.Key["SK"].(*types.AttributeValueMemberS).Value == "WALLET"
	k := d.seen
	if fail {
		d.seen++
		d.size = len(in.TransactItems)
		d.armed = d.top == nil && d.seen < d.size
	}
	d.mu.Unlock()
	if !fail {
		return d.DB.TransactWriteItems(ctx, in, opts...)
	}
	if d.top != nil {
		return nil, d.top()
	}
	reasons := make([]types.CancellationReason, len(in.TransactItems))
	for i := range reasons {
		reasons[i].Code = aws.String("None")
	}
	reasons[k].Code = aws.String(d.code)
	return nil, &types.TransactionCanceledException{Message: aws.String("Transaction cancelled"), CancellationReasons: reasons}
}

// moneyPath is one balance change a user or job makes: prepare readies it
// on s (its fault-free setup) and returns the change to run and the
// balance after it.
type moneyPath struct {
	name    string
	prepare func(t *testing.T, s *dynamo.Store, org string) (run func() error, balance int64)
}

var moneyPaths = []moneyPath{
	{"add-recipient", func(t *testing.T, s *dynamo.Store, org string) (func() error, int64) {
		orgID, _ := testenv.Org(t, s, org, 100)
		c := giftCampaign(t, s, orgID, 10)
		in := addInput(orgID, c.CampaignID, "jane@example.com")
		in.Idempotency = addIdempotent("k1", "h1")
		return func() error { _, err := testenv.Recipients(s).Write(context.Background(), in); return err }, 90
	}},
	{"launch", func(t *testing.T, s *dynamo.Store, org string) (func() error, int64) {
		orgID, c := launchFixtureOf(t, s, org, 3, "")
		return func() error {
			_, err := testenv.LaunchCampaign(context.Background(), s, orgID, c.CampaignID, "user-1")
			return err
		}, 970
	}},
	{"launch finish refunding a deleted contact", func(t *testing.T, s *dynamo.Store, org string) (func() error, int64) {
		ctx := context.Background()
		orgID, c := launchFixtureOf(t, s, org, 3, "")
		if _, err := testenv.LaunchCampaign(ctx, s, orgID, c.CampaignID, "user-1"); err != nil {
			t.Fatal(err)
		}
		ids, err := contact.NewApp(s, nil).MemberIDs(ctx, orgID, c.CampaignData.ContactListIDs[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := contact.NewApp(s, nil).DeleteContact(ctx, orgID, ids[0]); err != nil {
			t.Fatal(err)
		}
		return func() error {
			cursor := ""
			for range 10 {
				next, done, err := testenv.Campaigns(s).LaunchSlice(ctx, orgID, c.CampaignID, cursor)
				if err != nil || done {
					return err
				}
				cursor = next
			}
			return errors.New("the launch job does not finish")
		}, 980
	}},
	{"claim refunding the difference", func(t *testing.T, s *dynamo.Store, org string) (func() error, int64) {
		ctx := context.Background()
		orgID, _ := testenv.Org(t, s, org, 100)
		c := giftCampaign(t, s, orgID, 40)
		testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
		res, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "jane@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		return func() error {
			_, err := testenv.Recipients(s).Claim(ctx, orgID, c.CampaignID, res.Response.RecipientID, recipient.ClaimInput{GiftID: "gift-artisan-coffee",
				ShippingAddress: recipient.ShippingAddress{Line1: "1 Main Street", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}})
			return err
		}, 65
	}},
	{"expiry refund", func(t *testing.T, s *dynamo.Store, org string) (func() error, int64) {
		ctx := context.Background()
		orgID, _ := testenv.Org(t, s, org, 100)
		c := giftCampaign(t, s, orgID, 40)
		res, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "jane@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		return func() error {
			expired, err := testenv.Recipients(s).Expire(ctx, orgID, c.CampaignID, res.Response.RecipientID, false)
			if err == nil && !expired {
				err = errors.New("not expired")
			}
			return err
		}, 100
	}},
	{"top-up", func(t *testing.T, s *dynamo.Store, org string) (func() error, int64) {
		orgID, _ := testenv.Org(t, s, org, 100)
		return func() error {
			_, err := wallet.NewApp(s).TopUpOnce(context.Background(), wallet.TopUpRequest{OrgID: orgID, RequestID: "inv-1", Credits: 50, Reason: "invoice 1"})
			return err
		}, 150
	}},
}

// TestMoneyPathsUnderCancellations runs every balance change through the
// faults DynamoDB answers a busy table with: a transaction cancelled for a
// conflict or throttling on each of its items in turn is retried to one
// success; a request refused whole (throughput, a server error) is
// SERVICE_UNAVAILABLE with nothing written, and the caller's retry then
// succeeds once.
func TestMoneyPathsUnderCancellations(t *testing.T) {
	t.Parallel()
	faults := []struct {
		name string
		code string
		top  func() error
	}{
		{"TransactionConflict on each item", "TransactionConflict", nil},
		{"ThrottlingError on each item", "ThrottlingError", nil},
		{"ProvisionedThroughputExceeded on each item", "ProvisionedThroughputExceeded", nil},
		{"ProvisionedThroughputExceededException", "", func() error {
			return &types.ProvisionedThroughputExceededException{Message: aws.String("rate of requests exceeds the allowed throughput")}
		}},
		{"InternalServerError", "", func() error { return &types.InternalServerError{Message: aws.String("internal server error")} }},
	}
	for i, p := range moneyPaths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			fake := &cancellingWalletDB{DB: testenv.Client(t)}
			s := dynamo.New(fake, testenv.Table(t))
			if _, err := seed.SeedCatalog(context.Background(), s); err != nil {
				t.Fatal(err)
			}
			for j, f := range faults {
				t.Run(f.name, func(t *testing.T) {
					org := fmt.Sprintf("p%df%d", i, j)
					run, balance := p.prepare(t, s, org)
					fake.arm(f.code, f.top)
					err := run()
					if f.top != nil {
						if gifting.ErrorCode(err) != gifting.CodeUnavailable {
							t.Fatalf("err = %v, want SERVICE_UNAVAILABLE", err)
						}
						err = run()
					}
					if err != nil {
						t.Fatal(err)
					}
					if f.top == nil && (fake.size < 3 || fake.seen != fake.size) {
						t.Errorf("%d cancelled attempts of a transaction of %d items; want one per item", fake.seen, fake.size)
					}
					assertBalance(t, s, org, balance)
				})
			}
		})
	}
}
