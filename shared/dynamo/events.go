package dynamo

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/gifting"
)

// CreateEvent stores a new event of org, created by userID. The event must
// be validated; its linkedCampaigns must be campaigns of org (each is
// checked: NOT_FOUND names the first that is not). Ids, ownership,
// timestamps and version 1 are set here.
func (s *Store) CreateEvent(ctx context.Context, orgID, userID string, e gifting.Event) (gifting.Event, error) {
	if err := s.checkCampaigns(ctx, orgID, e.LinkedCampaigns); err != nil {
		return gifting.Event{}, err
	}
	now := s.Now()
	e.ID, e.OrganizationID, e.CreatorUserID = s.NewID(), orgID, userID
	e.CreatedAt, e.UpdatedAt, e.Version = now, now, 1
	if err := s.putNew(ctx, orgID, eventSK(e.ID), e); err != nil {
		return gifting.Event{}, err
	}
	e.Normalize()
	return e, nil
}

// Event returns event id of org, or NOT_FOUND.
func (s *Store) Event(ctx context.Context, orgID, id string) (gifting.Event, error) {
	var e gifting.Event
	found, err := s.get(ctx, orgPK(orgID), eventSK(id), &e)
	if err != nil {
		return e, err
	}
	if !found {
		return e, gifting.NotFound("event", id)
	}
	e.Normalize()
	return e, nil
}

// LinkEventCampaigns adds campaigns of org to event id's linkedCampaigns
// (ids already linked are kept once). Every id must be a campaign of org:
// NOT_FOUND names the first that is not, and nothing changes. The version
// grows by one when the links change; linking only campaigns already
// linked changes nothing. At most gifting.MaxEventCampaign campaigns can be
// linked to an event (VALIDATION_FAILED beyond).
func (s *Store) LinkEventCampaigns(ctx context.Context, orgID, id string, campaignIDs []string) (gifting.Event, error) {
	if _, err := s.Event(ctx, orgID, id); err != nil {
		return gifting.Event{}, err
	}
	if err := s.checkCampaigns(ctx, orgID, campaignIDs); err != nil {
		return gifting.Event{}, err
	}
	return s.changeEvent(ctx, orgID, id, func(e *gifting.Event) error {
		for _, c := range campaignIDs {
			if !slices.Contains(e.LinkedCampaigns, c) {
				e.LinkedCampaigns = append(e.LinkedCampaigns, c)
			}
		}
		if len(e.LinkedCampaigns) > gifting.MaxEventCampaign {
			var p gifting.Problems
			p.Add("campaignIds", fmt.Sprintf("an event links at most %d campaigns; it would link %d", gifting.MaxEventCampaign, len(e.LinkedCampaigns)))
			return p.Err()
		}
		return nil
	})
}

// UnlinkEventCampaign removes campaignID from event id's linkedCampaigns.
// It returns NOT_FOUND when the event does not exist or the campaign is not
// linked to it.
func (s *Store) UnlinkEventCampaign(ctx context.Context, orgID, id, campaignID string) (gifting.Event, error) {
	return s.changeEvent(ctx, orgID, id, func(e *gifting.Event) error {
		i := slices.Index(e.LinkedCampaigns, campaignID)
		if i < 0 {
			return gifting.Errorf(gifting.CodeNotFound, "campaign %q is not linked to event %q", campaignID, id)
		}
		e.LinkedCampaigns = slices.Delete(e.LinkedCampaigns, i, i+1)
		return nil
	})
}

// changeEvent applies change to the stored event and writes the links back
// if they changed, conditioned on the version it read: a concurrent change
// makes it read again and retry, so no change is lost and every change
// gets its own version.
func (s *Store) changeEvent(ctx context.Context, orgID, id string, change func(*gifting.Event) error) (gifting.Event, error) {
	for attempt := 1; ; attempt++ {
		e, err := s.Event(ctx, orgID, id)
		if err != nil {
			return e, err
		}
		before := slices.Clone(e.LinkedCampaigns)
		if err := change(&e); err != nil {
			return gifting.Event{}, err
		}
		if slices.Equal(before, e.LinkedCampaigns) {
			return e, nil
		}
		links, err := marshal(struct {
			L []string `json:"l"`
		}{e.LinkedCampaigns})
		if err != nil {
			return gifting.Event{}, err
		}
		now := s.Now()
		_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                &s.table,
			Key:                      key(orgPK(orgID), eventSK(id)),
			UpdateExpression:         aws.String("SET linkedCampaigns = :l, #v = :next, updatedAt = :now"),
			ConditionExpression:      aws.String("#v = :v"),
			ExpressionAttributeNames: map[string]string{"#v": "version"},
			ExpressionAttributeValues: item{
				":l": links["l"], ":v": num(int64(e.Version)), ":next": num(int64(e.Version + 1)),
				":now": str(now.Format(timeLayout)),
			},
		})
		if err == nil {
			e.Version, e.UpdatedAt = e.Version+1, now
			return e, nil
		}
		if !isConditionFailed(err) || attempt >= maxAttempts {
			return gifting.Event{}, fmt.Errorf("change event %s: %w", id, err)
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return gifting.Event{}, err
		}
	}
}

// checkCampaigns returns NOT_FOUND naming the first of ids that is not a
// campaign of org.
func (s *Store) checkCampaigns(ctx context.Context, orgID string, ids []string) error {
	for _, id := range ids {
		if _, err := s.Campaign(ctx, orgID, id); err != nil {
			return err
		}
	}
	return nil
}
