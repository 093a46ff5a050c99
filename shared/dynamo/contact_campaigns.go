package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/time/rate"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// contactCampaignIDsAttr is the attribute of a contact item that holds its
// usage.campaignIds (storedContact.CIDs).
const contactCampaignIDsAttr = "cids"

// joinCampaignCond is the condition of joinCampaign's update: a live
// contact (a deleted one leaves at most a bare slot at its key, without
// contactId) that does not show the campaign yet, in either place it can
// be stored, and shows fewer than contact.MaxCampaigns campaigns
// (those it got from add-recipient, under usage, count towards it only
// there: contact.Contact.AddCampaign).
const joinCampaignCond = "attribute_exists(contactId) AND NOT contains(cids, :id) AND NOT contains(#usage.campaignIds, :id) " +
	"AND (attribute_not_exists(cids) OR size(cids) < :most)"

// joinCampaign shows campaign c on the contacts of the launch recipients
// rs (usage.campaignIds and campaigns, with each recipient's status as it
// was written), for those of contacts (the contacts the slice read, by id)
// that do not show it yet. Each is one UpdateItem that appends to both
// lists, conditioned on the campaign not being there, so a slice run twice,
// a contact in two of the campaign's lists and a contact added before by
// add-recipient all show it once; it moves the contact's version, so a
// concurrent write of the contact read before fails and reads again
// instead of dropping the campaign. The updates run launchPutters at a
// time, paced by pace like the recipients' puts (contacts live in the same
// partition). A refused condition (there already, deleted since, at the
// most campaigns) is no error.
func (s *Store) joinCampaign(ctx context.Context, orgID string, c campaign.Campaign, contacts map[string]gifting.Contact, rs []recipient.Stored, pace *rate.Limiter) error {
	type join struct {
		ct     gifting.Contact
		status gifting.RecipientStatus
	}
	var todo []join
	for _, r := range rs {
		ct, ok := contacts[r.ContactDetails.ContactID]
		if ok && !slices.Contains(ct.Usage.CampaignIDs, c.CampaignID) && len(ct.Usage.CampaignIDs) < contact.MaxCampaigns {
			todo = append(todo, join{ct, r.Status})
		}
	}
	return errors.Join(eachAtMost(launchPutters, len(todo), func(i int) error {
		return s.joinContactToCampaign(ctx, orgID, c, todo[i].ct, todo[i].status, pace)
	})...)
}

// joinContactToCampaign is joinCampaign's update of one contact ct (as
// read) whose recipient in c was written with status.
func (s *Store) joinContactToCampaign(ctx context.Context, orgID string, c campaign.Campaign, ct gifting.Contact, status gifting.RecipientStatus, pace *rate.Limiter) error {
	cc := gifting.ContactCampaign{CampaignID: c.CampaignID, CampaignName: c.Name, Status: string(status)}
	entry, err := marshalValue(cc)
	if err != nil {
		return err
	}
	// The update bills the item as it will be: as read, with this
	// campaign.
	after := ct
	after.Usage.CampaignIDs = append(slices.Clone(ct.Usage.CampaignIDs), c.CampaignID)
	after.Campaigns = append(slices.Clone(ct.Campaigns), cc)
	it, err := s.contactItem(orgID, storedContact{LSK: contactLSK("", "")}, after)
	if err != nil {
		return err
	}
	if err := waitUnits(ctx, pace, writeUnits(it)); err != nil {
		return fmt.Errorf("launch pace: %w", err)
	}
	none := &types.AttributeValueMemberL{Value: []types.AttributeValue{}}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: key(orgPK(orgID), contactSK(ct.ContactID)),
		UpdateExpression: aws.String("SET cids = list_append(if_not_exists(cids, :none), :ids), " +
			"campaigns = list_append(if_not_exists(campaigns, :none), :entries), updatedAt = :now ADD ver :one"),
		ConditionExpression:      aws.String(joinCampaignCond),
		ExpressionAttributeNames: map[string]string{"#usage": "usage"},
		ExpressionAttributeValues: item{
			":id": str(c.CampaignID), ":ids": strList([]string{c.CampaignID}),
			":entries": &types.AttributeValueMemberL{Value: []types.AttributeValue{entry}},
			":none":    none, ":most": num(contact.MaxCampaigns), ":one": num(1),
			":now": str(s.Now().UTC().Format(time.RFC3339Nano)),
		},
	})
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("show campaign on contact: %w", err)
	}
	return nil
}

// strList is a list attribute of strings.
func strList(ss []string) *types.AttributeValueMemberL {
	l := make([]types.AttributeValue, len(ss))
	for i, s := range ss {
		l[i] = str(s)
	}
	return &types.AttributeValueMemberL{Value: l}
}
