package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/event"
	"github.com/giftcampaign/service/shared/gifting"
)

// The event slice's storage: load and commit (shared/event decides). The
// items keep the attribute names they had when the API's type was stored
// as it was (docs/data-model.md); the tags name attributes, as the
// store's marshal reads them.

// The store implements the event slice's port.
var _ event.Store = (*Store)(nil)

// eventItem is an event (EVENT#<id> under the organization, listed in the
// Slim index; DELEVENT#<id> once deleted).
type eventItem struct {
	ID                string            `json:"id"`
	Name              string            `json:"name"`
	Type              string            `json:"type"`
	Status            string            `json:"status"`
	Visibility        string            `json:"visibility"`
	OrganizationID    string            `json:"organizationId"`
	CreatorUserID     string            `json:"creatorUserId"`
	EventDates        eventDatesItem    `json:"eventDatesItem"`
	Location          eventLocationItem `json:"location"`
	Description       string            `json:"description"`
	Host              string            `json:"host"`
	Agenda            string            `json:"agenda"`
	Focus             string            `json:"focus"`
	EventURL          string            `json:"eventUrl"`
	Banner            string            `json:"banner"`
	Hashtag           string            `json:"hashtag"`
	Topics            []string          `json:"topics"`
	TargetAudience    []string          `json:"targetAudience"`
	TargetAccounts    []string          `json:"targetAccounts"`
	LinkedCampaigns   []string          `json:"linkedCampaigns"`
	Tags              []string          `json:"tags"`
	Speakers          []speakerItem     `json:"speakers"`
	ExpectedAttendees int               `json:"expectedAttendees"`
	CreatedAt         time.Time         `json:"createdAt"`
	UpdatedAt         time.Time         `json:"updatedAt"`
	Version           int               `json:"version"`
}

type eventDatesItem struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

type eventLocationItem struct {
	Type      string `json:"type"`
	Address   string `json:"address"`
	OnlineURL string `json:"onlineUrl"`
	VenueName string `json:"venueName"`
}

type speakerItem struct {
	FullName string `json:"fullName"`
	Role     string `json:"role"`
	Company  string `json:"company"`
	PhotoURL string `json:"photoUrl"`
	Bio      string `json:"bio"`
}

func eventItemOf(e event.Event) eventItem {
	return eventItem{
		ID: e.ID, Name: e.Name, Type: e.Type, Status: e.Status, Visibility: e.Visibility,
		OrganizationID: e.OrganizationID, CreatorUserID: e.CreatorUserID,
		EventDates: eventDatesItem(e.EventDates), Location: eventLocationItem(e.Location),
		Description: e.Description, Host: e.Host, Agenda: e.Agenda, Focus: e.Focus,
		EventURL: e.EventURL, Banner: e.Banner, Hashtag: e.Hashtag,
		Topics: e.Topics, TargetAudience: e.TargetAudience, TargetAccounts: e.TargetAccounts,
		LinkedCampaigns: e.LinkedCampaigns, Tags: e.Tags, Speakers: convertAll(e.Speakers, speakerItemOf),
		ExpectedAttendees: e.ExpectedAttendees, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, Version: e.Version,
	}
}

func (it eventItem) event() event.Event {
	return event.Event{
		ID: it.ID, Name: it.Name, Type: it.Type, Status: it.Status, Visibility: it.Visibility,
		OrganizationID: it.OrganizationID, CreatorUserID: it.CreatorUserID,
		EventDates: event.Dates(it.EventDates), Location: event.Location(it.Location),
		Description: it.Description, Host: it.Host, Agenda: it.Agenda, Focus: it.Focus,
		EventURL: it.EventURL, Banner: it.Banner, Hashtag: it.Hashtag,
		Topics: it.Topics, TargetAudience: it.TargetAudience, TargetAccounts: it.TargetAccounts,
		LinkedCampaigns: it.LinkedCampaigns, Tags: it.Tags, Speakers: convertAll(it.Speakers, speakerOf),
		ExpectedAttendees: it.ExpectedAttendees, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, Version: it.Version,
	}
}

func speakerItemOf(s event.Speaker) speakerItem { return speakerItem(s) }
func speakerOf(s speakerItem) event.Speaker     { return event.Speaker(s) }

// convertAll maps in through f, keeping nil as nil (a list never set
// stays unset).
func convertAll[A, B any](in []A, f func(A) B) []B {
	if in == nil {
		return nil
	}
	out := make([]B, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// decodeEvents maps stored items to events.
func decodeEvents(items []item) ([]event.Event, error) {
	its, err := decodeAll[eventItem](items)
	return convertAll(its, eventItem.event), err
}

// Event reads event id of org, or event.ErrNotFound.
func (s *Store) Event(ctx context.Context, orgID, id string) (event.Event, error) {
	var it eventItem
	found, err := s.get(ctx, orgPK(orgID), eventSK(id), &it)
	if err == nil && !found {
		err = event.ErrNotFound
	}
	return it.event(), err
}

// EventPage reads a page of org's events in creation order, and their
// number: the counter and the Slim index, O(page) (orderedPage).
func (s *Store) EventPage(ctx context.Context, orgID string, order gifting.SortOrder, page gifting.PageRequest) ([]event.Event, int, error) {
	items, total, err := s.orderedPage(ctx, orgID, eventsOf(orgID), order, page)
	if err != nil {
		return nil, 0, err
	}
	es, err := decodeEvents(items)
	return es, total, err
}

// Events reads every event of org (events are few: tens to hundreds a
// year, ~2 KB each, about 1 read unit per 2 events).
func (s *Store) Events(ctx context.Context, orgID string) ([]event.Event, error) {
	items, err := s.queryPrefix(ctx, orgPK(orgID), eventPrefix, true)
	if err != nil {
		return nil, err
	}
	return decodeEvents(items)
}

// CommitNewEvent writes e with its Slim entry and counts it (putCounted).
func (s *Store) CommitNewEvent(ctx context.Context, e event.Event) error {
	return s.putCounted(ctx, e.OrganizationID, eventSK(e.ID), eventsOf(e.OrganizationID), eventItemOf(e))
}

// CommitEvent writes e over the stored event if it is still at version
// seen (event.ErrVersionMoved otherwise).
func (s *Store) CommitEvent(ctx context.Context, e event.Event, seen int) error {
	orgID := e.OrganizationID
	it, err := listedItem(eventItemOf(e), orgID, eventSK(e.ID), eventsOf(orgID))
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: it,
		ConditionExpression:       aws.String("#v = :v"),
		ExpressionAttributeNames:  map[string]string{"#v": "version"},
		ExpressionAttributeValues: item{":v": num(int64(seen))},
	})
	if isConditionFailed(err) {
		return event.ErrVersionMoved
	}
	return err
}

// CommitEventDelete moves e to DELEVENT# (out of the list and the Slim
// index) and drops the events counter, in one transaction conditioned on
// the stored event being at version seen.
func (s *Store) CommitEventDelete(ctx context.Context, e event.Event, seen int) error {
	orgID := e.OrganizationID
	it, err := withKey(eventItemOf(e), map[string]string{"PK": orgPK(orgID), "SK": deletedEventSK(e.ID)})
	if err != nil {
		return err
	}
	err = s.transactRetrying(ctx, []types.TransactWriteItem{
		{Delete: &types.Delete{
			TableName: &s.table, Key: key(orgPK(orgID), eventSK(e.ID)),
			ConditionExpression:       aws.String("#v = :v"),
			ExpressionAttributeNames:  map[string]string{"#v": "version"},
			ExpressionAttributeValues: item{":v": num(int64(seen))},
		}},
		{Put: &types.Put{TableName: &s.table, Item: it}},
		s.counterAdd(orgID, counterEvents, -1),
	})
	return eventMoved(err)
}

// eventMoved maps a delete's cancellation by the event's condition (its
// first item) to event.ErrVersionMoved.
func eventMoved(err error) error {
	if err != nil && reasonCode(cancellationReasons(err), 0) == "ConditionalCheckFailed" {
		return event.ErrVersionMoved
	}
	return err
}
