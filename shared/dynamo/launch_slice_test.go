package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// countItems counts the items of orgID's partition whose sort key starts
// with prefix.
func countItems(t *testing.T, s *dynamo.Store, orgID, prefix string) int32 {
	t.Helper()
	table := s.Table()
	out, err := testenv.Client(t).Query(context.Background(), &dynamodb.QueryInput{
		TableName: &table, KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "ORG#" + orgID}, ":p": &types.AttributeValueMemberS{Value: prefix}},
		// Launch tombstones (the keys of contacts deleted mid-launch) are no
		// recipients.
		FilterExpression: aws.String("attribute_not_exists(gone)"),
		Select:           types.SelectCount, ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Count
}

// crashBeforeCountDB loses the connection on the first transaction that
// counts a launch slice (the one whose first item updates a LAUNCH#
// record), after the slice's recipients are written: a worker that died
// between its puts and its count.
type crashBeforeCountDB struct {
	dynamo.DB
	mu      sync.Mutex
	crashed bool
}

func (d *crashBeforeCountDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	d.mu.Lock()
	u := in.TransactItems[0].Update
	crash := !d.crashed && u != nil && strings.HasPrefix(u.Key["SK"].(*types.AttributeValueMemberS).Value, "LAUNCH#")
	d.crashed = d.crashed || crash
	d.mu.Unlock()
	if crash {
		return nil, errors.New("connection reset by peer")
	}
	return d.DB.TransactWriteItems(ctx, in, opts...)
}

// assertLaunched checks that the campaign is live with recipients
// recipients, each paid for once, from a wallet of 1,000.
func assertLaunched(t *testing.T, s *dynamo.Store, orgID, campaignID string, recipients int64) {
	t.Helper()
	ctx := context.Background()
	got, err := s.Campaign(ctx, orgID, campaignID)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Wallet(ctx, orgID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != campaign.Live || got.TotalRecipients != recipients || got.LiveData.CreditsSpent != 10*recipients || w.Balance != 1000-10*recipients {
		t.Errorf("campaign %s, %d recipients, %d credits spent, balance %d; want live, %d, %d, %d",
			got.Status, got.TotalRecipients, got.LiveData.CreditsSpent, w.Balance, recipients, 10*recipients, 1000-10*recipients)
	}
	if n := countItems(t, s, orgID, "RCPT#"+campaignID+"#"); int64(n) != recipients {
		t.Errorf("%d recipient items, want %d", n, recipients)
	}
}

func TestLaunchSliceCrashBeforeCounting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	table := testenv.Table(t)
	for _, tt := range []struct {
		name string
		// between runs, after the crash
		between func(t *testing.T, s *dynamo.Store, orgID string, contactIDs []string)
		want    int64
	}{
		{"the run again counts what the crashed one wrote", nil, 7},
		{"a contact deleted after the crash keeps its recipient, counted and paid", func(t *testing.T, s *dynamo.Store, orgID string, ids []string) {
			if err := contact.NewApp(s, nil).DeleteContact(ctx, orgID, ids[0]); err != nil {
				t.Fatal(err)
			}
		}, 7},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := &crashBeforeCountDB{DB: testenv.Client(t)}
			s := dynamo.New(fake, table)
			if _, err := seed.SeedCatalog(ctx, s); err != nil {
				t.Fatal(err)
			}
			orgID, c := launchFixtureOf(t, s, "crash-"+fmt.Sprint(len(tt.name)), 7, "")
			if _, err := testenv.LaunchCampaign(ctx, s, orgID, c.CampaignID, "user-1"); err != nil {
				t.Fatal(err)
			}
			if _, _, err := testenv.Campaigns(s).LaunchSlice(ctx, orgID, c.CampaignID, ""); err == nil {
				t.Fatal("the first slice survived its crash")
			}
			if n := countItems(t, s, orgID, "RCPT#"+c.CampaignID+"#"); n != 7 {
				t.Fatalf("%d recipients written before the crash, want 7", n)
			}
			if tt.between != nil {
				ids, err := contact.NewApp(s, nil).MemberIDs(ctx, orgID, c.CampaignData.ContactListIDs[0])
				if err != nil {
					t.Fatal(err)
				}
				tt.between(t, s, orgID, ids)
			}
			runSlicesTwice(t, s, orgID, c.CampaignID, nil)
			assertLaunched(t, s, orgID, c.CampaignID, tt.want)
		})
	}
}

// TestLaunchSliceRunsAtOnce runs the same slice in several workers at the
// same time (duplicate messages, a tick beside the job): every contact
// becomes one recipient, counted and paid once, and invited once.
func TestLaunchSliceRunsAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	const n = 90
	orgID, c := launchFixtureOf(t, s, "overlap", n, "tmpl-meeting-booker")
	if _, err := testenv.LaunchCampaign(ctx, s, orgID, c.CampaignID, "user-1"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	invited := map[string]int{}
	campaigns := testenv.Campaigns(s, testenv.Inviter(func(ctx context.Context, orgID string, inv recipient.Invitation) bool {
		mu.Lock()
		defer mu.Unlock()
		r := inv.Recipient
		invited[r.RecipientID]++
		// The mail provider accepted it: the sender records it.
		if err := testenv.Recipients(s).EmailSent(ctx, orgID, r.CampaignID, r.RecipientID, "addressConfirmation", "msg-"+r.RecipientID); err != nil {
			t.Error(err)
		}
		return true
	}))
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cursor := ""
			for step := 0; step < 20; step++ {
				next, done, err := campaigns.LaunchSlice(ctx, orgID, c.CampaignID, cursor)
				if err != nil {
					t.Error(err)
					return
				}
				if done {
					return
				}
				cursor = next
			}
			t.Error("a worker's launch job does not finish")
		}()
	}
	wg.Wait()
	assertLaunched(t, s, orgID, c.CampaignID, n)
	got, err := s.Campaign(ctx, orgID, c.CampaignID)
	if err != nil {
		t.Fatal(err)
	}
	if got.LiveData.StatusCounts[gifting.RecipientInviteSent] != n {
		t.Errorf("status counts %v, want %d invite_sent", got.LiveData.StatusCounts, n)
	}
	if len(invited) != n {
		t.Errorf("%d recipients invited, want %d", len(invited), n)
	}
	for id, k := range invited {
		if k != 1 {
			t.Errorf("recipient %s invited %d times", id, k)
		}
	}
}

// TestLaunchPace launches at a pace of 50 write units a second and reads
// the meter: no second puts more than the pace and its burst into the
// organization's partition, so the launch takes as long as its writes at
// that pace.
func TestLaunchPace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const pace, n = 50, 90
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Table(t), dynamo.WithLaunchWriteRate(pace))
	if _, err := seed.SeedCatalog(ctx, s); err != nil {
		t.Fatal(err)
	}
	orgID, c := launchFixtureOf(t, s, "paced", n, "tmpl-meeting-booker")
	if _, err := testenv.LaunchCampaign(ctx, s, orgID, c.CampaignID, "user-1"); err != nil {
		t.Fatal(err)
	}
	u := &meter.Usage{Record: true}
	stop := m.Observe(u)
	start := time.Now()
	runSlicesTwice(t, s, orgID, c.CampaignID, nil)
	took := time.Since(start)
	stop()
	assertLaunched(t, s, orgID, c.CampaignID, n)
	units, peak := orgPartitionWrites(u.Calls(), orgID)
	// The pace plus its burst (64) in any one second.
	if peak.Units > pace+64 {
		t.Errorf("peak %.0f write units in one second into the organization's partition, want at most %d", peak.Units, pace+64)
	}
	if least := time.Duration((units - 64) / pace * float64(time.Second)); took < least {
		t.Errorf("the launch wrote %.0f units in %v, faster than its pace allows (%v)", units, took, least)
	}
}

// holdPutDB holds the first put of the recipient item whose sort key is
// sk until release is closed, telling held when it starts waiting: a run of
// a launch slice that read a contact and is slow to write its recipient.
type holdPutDB struct {
	dynamo.DB
	sk      string
	once    sync.Once
	held    chan struct{}
	release chan struct{}
}

func (d *holdPutDB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if sk, ok := in.Item["SK"].(*types.AttributeValueMemberS); ok && sk.Value == d.sk && in.Item["gone"] == nil {
		hold := false
		d.once.Do(func() { hold = true })
		if hold {
			close(d.held)
			<-d.release
		}
	}
	return d.DB.PutItem(ctx, in, opts...)
}

// TestLaunchSliceContactDeletedBetweenRuns: two runs of one slice, the
// first read the contact, the contact is deleted, the second run (not
// seeing it) counts the slice, then the first writes its recipient. The
// recipient must not appear unpaid: the second run's tombstone on its key
// makes the first run's put write nothing, so the launch ends with the
// recipients it paid for, and the deleted contact's credits refunded.
func TestLaunchSliceContactDeletedBetweenRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	table := testenv.Table(t)
	client := testenv.Client(t)
	plain := dynamo.New(client, table)
	if _, err := seed.SeedCatalog(ctx, plain); err != nil {
		t.Fatal(err)
	}
	orgID, c := launchFixtureOf(t, plain, "gone-between", 3, "")
	ids, err := contact.NewApp(plain, nil).MemberIDs(ctx, orgID, c.CampaignData.ContactListIDs[0])
	if err != nil {
		t.Fatal(err)
	}
	gone := ids[1]
	fake := &holdPutDB{DB: client, sk: "RCPT#" + c.CampaignID + "#" + dynamo.RecipientIDFor(c.CampaignID, gone),
		held: make(chan struct{}), release: make(chan struct{})}
	slow := dynamo.New(fake, table)
	if _, err := testenv.LaunchCampaign(ctx, plain, orgID, c.CampaignID, "user-1"); err != nil {
		t.Fatal(err)
	}
	firstDone := make(chan error, 1)
	go func() {
		_, _, err := testenv.Campaigns(slow).LaunchSlice(ctx, orgID, c.CampaignID, "")
		firstDone <- err
	}()
	select {
	case <-fake.held:
	case err := <-firstDone:
		t.Fatalf("the first run ended before writing the held recipient: %v", err)
	}
	if err := contact.NewApp(plain, nil).DeleteContact(ctx, orgID, gone); err != nil {
		t.Fatal(err)
	}
	// The second run of the same slice: it no longer sees the contact and
	// counts the slice.
	if _, _, err := testenv.Campaigns(plain).LaunchSlice(ctx, orgID, c.CampaignID, ""); err != nil {
		t.Fatal(err)
	}
	close(fake.release)
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	runSlicesTwice(t, plain, orgID, c.CampaignID, nil)
	assertLaunched(t, plain, orgID, c.CampaignID, 2)
	if _, err := plain.Recipient(ctx, orgID, c.CampaignID, dynamo.RecipientIDFor(c.CampaignID, gone)); !errors.Is(err, recipient.ErrNoRecipient) {
		t.Errorf("the deleted contact's recipient key reads %v, want no recipient", err)
	}
}

// laggyIndexDB is DynamoDB as deployed, where a global secondary index
// shows a write a moment after the table: its Slim queries leave out the
// entries of items put less than lag ago. (DynamoDB Local updates its
// indexes with the table, so only a fake shows the lag.)
type laggyIndexDB struct {
	dynamo.DB
	lag     time.Duration
	mu      sync.Mutex
	written map[string]time.Time // LPK + LSK → when put
}

func (d *laggyIndexDB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	out, err := d.DB.PutItem(ctx, in, opts...)
	lpk, ok1 := in.Item["LPK"].(*types.AttributeValueMemberS)
	lsk, ok2 := in.Item["LSK"].(*types.AttributeValueMemberS)
	if err == nil && ok1 && ok2 {
		d.mu.Lock()
		d.written[lpk.Value+"\x00"+lsk.Value] = time.Now()
		d.mu.Unlock()
	}
	return out, err
}

// TransactWriteItems records the Slim entries a transaction puts, as
// PutItem does (a contact written with its search entries is one).
func (d *laggyIndexDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := d.DB.TransactWriteItems(ctx, in, opts...)
	if err != nil {
		return out, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, w := range in.TransactItems {
		if w.Put == nil {
			continue
		}
		lpk, ok1 := w.Put.Item["LPK"].(*types.AttributeValueMemberS)
		lsk, ok2 := w.Put.Item["LSK"].(*types.AttributeValueMemberS)
		if ok1 && ok2 {
			d.written[lpk.Value+"\x00"+lsk.Value] = time.Now()
		}
	}
	return out, err
}

func (d *laggyIndexDB) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := d.DB.Query(ctx, in, opts...)
	if err != nil || aws.ToString(in.IndexName) != "Slim" {
		return out, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	// The partition queried (a projection may leave LPK out).
	lpk, _ := in.ExpressionAttributeValues[":lpk"].(*types.AttributeValueMemberS)
	kept := out.Items[:0]
	for _, it := range out.Items {
		lsk, _ := it["LSK"].(*types.AttributeValueMemberS)
		if lpk != nil && lsk != nil {
			if at, ok := d.written[lpk.Value+"\x00"+lsk.Value]; ok && time.Since(at) < d.lag {
				continue
			}
		}
		kept = append(kept, it)
	}
	out.Items, out.Count = kept, int32(len(kept))
	return out, nil
}

// TestLaunchRightAfterAnImport: a campaign launched the moment its list was
// imported reaches every contact although the index trails the table,
// because the launch lets the index settle first; without that wait the
// lag loses contacts (refunded, but never invited).
func TestLaunchRightAfterAnImport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	table := testenv.Table(t)
	const lag = 2 * time.Second
	for _, tt := range []struct {
		name   string
		settle time.Duration
		want   int64
	}{
		{"the launch waits for the index and reaches all five", 2 * lag, 5},
		{"without the wait the lag hides them", 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := &laggyIndexDB{DB: testenv.Client(t), lag: lag, written: map[string]time.Time{}}
			s := dynamo.New(db, table, dynamo.WithIndexSettle(tt.settle))
			if _, err := seed.SeedCatalog(ctx, s); err != nil {
				t.Fatal(err)
			}
			orgID, c := launchFixtureOf(t, s, "settle-"+fmt.Sprint(tt.want), 5, "")
			if _, err := testenv.LaunchCampaign(ctx, s, orgID, c.CampaignID, "user-1"); err != nil {
				t.Fatal(err)
			}
			runSlicesTwice(t, s, orgID, c.CampaignID, nil)
			assertLaunched(t, s, orgID, c.CampaignID, tt.want)
		})
	}
}

// orgPartitionWrites sums the write units calls put into the table
// partition of orgID, and finds its busiest second.
func orgPartitionWrites(calls []meter.Call, orgID string) (units float64, peak meter.PartitionSecond) {
	for _, ps := range meter.PartitionSeconds(calls, meter.Layout{PK: "PK", SK: "SK"}) {
		if ps.Key != "ORG#"+orgID {
			continue
		}
		units += ps.Units
		if ps.Units > peak.Units {
			peak = ps
		}
	}
	return units, peak
}
