package event

import (
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Patch is a partial update of an event: nil fields are left as they are.
// The dates change one by one; a sent location, list or speakers replaces
// the stored one. Links change through Link and Unlink, not here.
type Patch struct {
	Name, Type, Status, Visibility               *string
	Start, End                                   *time.Time
	Location                                     *Location
	Description, Host, Agenda, Focus             *string
	EventURL, Banner, Hashtag                    *string
	Topics, TargetAudience, TargetAccounts, Tags *[]string
	Speakers                                     *[]Speaker
	ExpectedAttendees                            *int
	// Unreadable are the problems found reading the patch (a date that is
	// no date), reported together with the patched event's own.
	Unreadable gifting.Problems
}

// Apply sets the patch's fields on e and checks the result as a new event
// is checked (Check), reporting its problems with p.Unreadable.
func (p Patch) Apply(e *Event) error {
	for _, f := range []struct {
		dst *string
		v   *string
	}{
		{&e.Name, p.Name}, {&e.Type, p.Type}, {&e.Status, p.Status}, {&e.Visibility, p.Visibility},
		{&e.Description, p.Description}, {&e.Host, p.Host}, {&e.Agenda, p.Agenda}, {&e.Focus, p.Focus},
		{&e.EventURL, p.EventURL}, {&e.Banner, p.Banner}, {&e.Hashtag, p.Hashtag},
	} {
		set(f.dst, f.v)
	}
	for _, f := range []struct {
		dst *[]string
		v   *[]string
	}{
		{&e.Topics, p.Topics}, {&e.TargetAudience, p.TargetAudience}, {&e.TargetAccounts, p.TargetAccounts}, {&e.Tags, p.Tags},
	} {
		set(f.dst, f.v)
	}
	set(&e.Location, p.Location)
	set(&e.Speakers, p.Speakers)
	set(&e.ExpectedAttendees, p.ExpectedAttendees)
	set(&e.EventDates.Start, p.Start)
	set(&e.EventDates.End, p.End)
	return gifting.MergeProblems(p.Unreadable, Check(e))
}

// set copies *v into *dst when v is not nil.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// Link adds campaignIDs (campaigns of the event's organization, checked
// by the caller) to e's links; ids already linked are kept once. An event
// links at most MaxCampaigns campaigns (VALIDATION_FAILED naming
// campaignIds beyond).
func (e *Event) Link(campaignIDs []string) error {
	for _, c := range campaignIDs {
		if !slices.Contains(e.LinkedCampaigns, c) {
			e.LinkedCampaigns = append(e.LinkedCampaigns, c)
		}
	}
	if len(e.LinkedCampaigns) > MaxCampaigns {
		var p gifting.Problems
		p.Add("campaignIds", fmt.Sprintf("an event links at most %d campaigns; it would link %d", MaxCampaigns, len(e.LinkedCampaigns)))
		return p.Err()
	}
	return nil
}

// Unlink removes campaignID from e's links: NOT_FOUND when it is not
// linked.
func (e *Event) Unlink(campaignID string) error {
	i := slices.Index(e.LinkedCampaigns, campaignID)
	if i < 0 {
		return gifting.Errorf(gifting.CodeNotFound, "campaign %q is not linked to event %q", campaignID, e.ID)
	}
	e.LinkedCampaigns = slices.Delete(e.LinkedCampaigns, i, i+1)
	return nil
}

// Change applies change to a copy of the stored event e and decides what
// to write: nothing (write false) when the event came out as it was, else
// the changed event with the next version and updatedAt now. change's
// error (a refused patch or link) is returned as it is.
func Change(e Event, change func(*Event) error, now time.Time) (after Event, write bool, err error) {
	after = e.clone()
	if err := change(&after); err != nil {
		return Event{}, false, err
	}
	after.Normalize()
	if reflect.DeepEqual(e, after) {
		return after, false, nil
	}
	return after.next(now), true, nil
}

// Deleted is e as its deletion keeps it: the next version, updatedAt now.
func Deleted(e Event, now time.Time) Event { return e.next(now) }

// next is e one version on, changed at now.
func (e Event) next(now time.Time) Event {
	e.Version, e.UpdatedAt = e.Version+1, now
	return e
}

// clone copies e with lists of its own, so a change of the copy leaves e
// as it was read.
func (e Event) clone() Event {
	for _, l := range []*[]string{&e.Topics, &e.TargetAudience, &e.TargetAccounts, &e.LinkedCampaigns, &e.Tags} {
		*l = slices.Clone(*l)
	}
	e.Speakers = slices.Clone(e.Speakers)
	return e
}
