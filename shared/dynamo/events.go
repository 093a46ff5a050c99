package dynamo

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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
	if err := s.putCounted(ctx, orgID, eventSK(e.ID), eventsOf(orgID), e); err != nil {
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

// changeEvent applies change to the stored event and, if the event
// changed, writes it back with the next version and a new updatedAt,
// conditioned on the version it read: a concurrent change makes it read
// again and retry, so no change is lost and every change gets its own
// version.
func (s *Store) changeEvent(ctx context.Context, orgID, id string, change func(*gifting.Event) error) (gifting.Event, error) {
	for attempt := 1; ; attempt++ {
		e, err := s.Event(ctx, orgID, id)
		if err != nil {
			return e, err
		}
		before := e
		before.LinkedCampaigns = slices.Clone(e.LinkedCampaigns)
		if err := change(&e); err != nil {
			return gifting.Event{}, err
		}
		e.Normalize()
		if reflect.DeepEqual(before, e) {
			return e, nil
		}
		e.ID, e.OrganizationID, e.Version, e.UpdatedAt = id, orgID, before.Version+1, s.Now()
		it, err := listedItem(e, orgID, eventSK(id), eventsOf(orgID))
		if err != nil {
			return gifting.Event{}, err
		}
		_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: &s.table, Item: it,
			ConditionExpression:       aws.String("#v = :v"),
			ExpressionAttributeNames:  map[string]string{"#v": "version"},
			ExpressionAttributeValues: item{":v": num(int64(before.Version))},
		})
		if err == nil {
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

// UpdateEvent applies change (an edit, which validates: VALIDATION_FAILED)
// to event id of org. An edit that changes something bumps the version and
// updatedAt; one that changes nothing writes nothing. NOT_FOUND for a
// missing or deleted event.
func (s *Store) UpdateEvent(ctx context.Context, orgID, id string, change func(*gifting.Event) error) (gifting.Event, error) {
	return s.changeEvent(ctx, orgID, id, change)
}

// DeleteEvent soft-deletes event id of org: one transaction moves it, with
// the next version, to DELEVENT# (out of the list and the Slim index) and
// drops the events counter. It is NOT_FOUND afterwards. NOT_FOUND for a
// missing event.
func (s *Store) DeleteEvent(ctx context.Context, orgID, id string) (gifting.Event, error) {
	for attempt := 1; ; attempt++ {
		e, err := s.Event(ctx, orgID, id)
		if err != nil {
			return e, err
		}
		seen := e.Version
		e.Version, e.UpdatedAt = seen+1, s.Now()
		it, err := withKey(e, map[string]string{"PK": orgPK(orgID), "SK": deletedEventSK(id)})
		if err != nil {
			return e, err
		}
		err = s.transactRetrying(ctx, []types.TransactWriteItem{
			{Delete: &types.Delete{
				TableName: &s.table, Key: key(orgPK(orgID), eventSK(id)),
				ConditionExpression:       aws.String("#v = :v"),
				ExpressionAttributeNames:  map[string]string{"#v": "version"},
				ExpressionAttributeValues: item{":v": num(int64(seen))},
			}},
			{Put: &types.Put{TableName: &s.table, Item: it}},
			s.counterAdd(orgID, counterEvents, -1),
		})
		if err == nil {
			return e, nil
		}
		if reasonCode(cancellationReasons(err), 0) != "ConditionalCheckFailed" || attempt >= maxAttempts {
			return e, fmt.Errorf("delete event %s: %w", id, err)
		}
	}
}

// ListEvents returns a page of org's events matching f and q, and how many
// match. The default order (createdAt, no filter, no search) is O(page):
// the counter and the Slim index. Any filter, search or other sort reads
// every event of the organization (events are few: tens to hundreds a
// year, ~2 KB each, about 1 read unit per 2 events) and sorts in memory.
func (s *Store) ListEvents(ctx context.Context, orgID string, f gifting.EventFilter, q gifting.ListQuery) ([]gifting.Event, int, error) {
	return listSmall(ctx, s, orgID, eventsOf(orgID), f.Empty(), q, smallList[gifting.Event]{
		normalize: (*gifting.Event).Normalize,
		keep:      func(v gifting.Event) bool { return f.Keeps(v) && gifting.MatchesSearch(v.SearchText(), q.Search) },
		compare: func(a, b gifting.Event) int {
			switch q.SortBy {
			case gifting.SortUpdatedAt:
				return a.UpdatedAt.Compare(b.UpdatedAt)
			case gifting.SortName:
				return gifting.CompareText(a.Name, b.Name)
			case "startDate":
				return a.EventDates.Start.Compare(b.EventDates.Start)
			}
			return a.CreatedAt.Compare(b.CreatedAt)
		},
		id: func(v gifting.Event) string { return v.ID },
	})
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
