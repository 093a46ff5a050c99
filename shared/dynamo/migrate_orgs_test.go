package dynamo_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestMigrateOrgRegistry: an organization created before the registry
// (its entry deleted here) is missing from the operator's list until the
// org-registry step puts it in; a second run changes nothing.
func TestMigrateOrgRegistry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "before-registry", 0)
	table := s.Table()
	if _, err := testenv.Client(t).DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "ORGS"}, "SK": &types.AttributeValueMemberS{Value: "ORG#" + orgID}}}); err != nil {
		t.Fatal(err)
	}
	listed := func() bool {
		page, err := access.NewApp(s).Orgs(ctx, "", "", access.MaxOrgPage)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Orgs {
			if o.Org.OrgID == orgID {
				return o.Org.OrgName == "Org "+orgID
			}
		}
		return false
	}
	if listed() {
		t.Fatal("an organization without a registry entry is listed")
	}
	for run, want := range []int{1, 0} {
		res, err := s.Migrate(ctx, orgID, []string{"org-registry"})
		if err != nil || len(res) != 1 || res[0].Changed != want {
			t.Fatalf("run %d: %+v, %v; want %d changed", run+1, res, err, want)
		}
	}
	if !listed() {
		t.Error("the migrated organization is not listed with its profile")
	}
}
