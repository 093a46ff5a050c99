package scheduler_test

import (
	"context"
	"math"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// billedWrites is the write units calls cost as AWS bills them: a
// single-item write as DynamoDB Local reports it, each item of a
// transaction twice per KB of the item (DynamoDB Local under-reports
// transactions; an update's item is sized as it is stored now).
func billedWrites(t *testing.T, table string, calls []meter.Call) float64 {
	t.Helper()
	kb := func(size int) float64 { return math.Max(1, math.Ceil(float64(size)/1024)) }
	stored := func(k map[string]types.AttributeValue) int {
		out, err := testenv.Client(t).GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &table, Key: k, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		return dynamo.ItemSize(out.Item)
	}
	var total float64
	for _, c := range calls {
		if c.Err != nil {
			continue
		}
		tw, ok := c.Input.(*dynamodb.TransactWriteItemsInput)
		if !ok {
			total += c.WriteUnits
			continue
		}
		for _, it := range tw.TransactItems {
			switch {
			case it.Put != nil:
				total += 2 * kb(dynamo.ItemSize(it.Put.Item))
			case it.Update != nil:
				total += 2 * kb(stored(it.Update.Key))
			case it.ConditionCheck != nil:
				total += 2 * kb(stored(it.ConditionCheck.Key))
			}
		}
	}
	return total
}

// TestLaunchWithInvitationsCost measures with the meter what a launch whose
// template invites at once costs a recipient, its invitation sent and
// recorded, as AWS bills the writes (billedWrites). Since a recipient is
// invite_sent only once SES accepted its invitation, the transaction that
// records a send also moves the campaign's counters and writes the
// recipient.status_changed record: the price of an invite_sent that never
// lies, about 4 write units an invitation.
func TestLaunchWithInvitationsCost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Table(t))
	mailer := &mail.Memory{}
	svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet, Mailer: mailer})
	const n = 100
	orgID, campaignID := invitingLaunch(t, s, n, 10)
	u := &meter.Usage{Record: true}
	stop := m.Observe(u)
	j := &jobs.Job{Kind: gifting.JobLaunch, OrgID: orgID, Ref: campaignID}
	for step := 0; j != nil; step++ {
		if step > 10 {
			t.Fatal("the launch does not finish")
		}
		var err error
		if j, err = svc.RunJob(ctx, *j); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	if sent := len(mailer.Sent()); sent != n {
		t.Fatalf("%d invitations sent, want %d", sent, n)
	}
	c := u.Counts()
	w := billedWrites(t, s.Table(), u.Calls())
	t.Logf("launch of %d with invitations: per recipient %.2f requests, %.2f read units, %.2f write units as billed",
		n, float64(c.Requests)/n, c.ReadUnits/n, w/n)
	if w/n > 20 {
		t.Errorf("%.2f write units a recipient invited at launch, want at most 20", w/n)
	}
	assertCountersMatch(t, s, orgID, campaignID, n, 10)
}
