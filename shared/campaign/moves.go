package campaign

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// moves is the campaign state machine: the states each state may move to.
// Launch moves draft to preparing (credits are taken); the launch job moves
// preparing to live when every recipient is written. A user pauses a live
// campaign (in_progress), resumes it (live) and completes either (Pause,
// Resume, Complete).
var moves = map[Status][]Status{
	Draft:      {Preparing},
	Preparing:  {Live},
	Live:       {InProgress, Completed},
	InProgress: {Live, Completed},
	Completed:  nil,
}

// CanMove reports whether a campaign may move from one state to another.
func CanMove(from, to Status) bool { return slices.Contains(moves[from], to) }

// Action is a move of the state machine a user asks for through the API.
// The launch and its job make the other moves themselves.
type Action struct {
	// Name is the action's endpoint; Done says what happened to the
	// campaign ("paused"), for messages.
	Name, Done string
	// From are the states the action applies to; To is where it leads.
	From []Status
	To   Status
	// Change is the type of the change message the action records.
	Change string
}

// The user's campaign actions.
var (
	// Pause stops a live campaign's emails; it stays active.
	Pause = Action{Name: "pause", Done: "paused", From: []Status{Live}, To: InProgress, Change: gifting.ChangeCampaignPaused}
	// Resume sends a paused campaign's emails again.
	Resume = Action{Name: "resume", Done: "resumed", From: []Status{InProgress}, To: Live, Change: gifting.ChangeCampaignResumed}
	// Complete ends a live or paused campaign: it takes no more
	// recipients, and its counters are kept in CompletionData.
	Complete = Action{Name: "complete", Done: "completed", From: []Status{Live, InProgress}, To: Completed,
		Change: gifting.ChangeCampaignCompleted}
)

// Actions lists the user's campaign actions.
var Actions = []Action{Pause, Resume, Complete}

// Allows reports whether a applies to a campaign in state st.
func (a Action) Allows(st Status) bool { return slices.Contains(a.From, st) }

// Refused is the CONFLICT of a on a campaign in state st: it names the
// current state and the states a applies to.
func (a Action) Refused(st Status) error {
	if st == a.To {
		return gifting.Errorf(gifting.CodeConflict, "campaign is already %s", st)
	}
	from := make([]string, len(a.From))
	for i, f := range a.From {
		from[i] = string(f)
	}
	return gifting.Errorf(gifting.CodeConflict, "campaign is %s; it can be %s only when %s", st, a.Done, strings.Join(from, " or "))
}

// Launched is c as its accepted launch leaves it: preparing, launched at
// now by userID, with contacts paid for.
func (c Campaign) Launched(now time.Time, userID string, contacts int64) Campaign {
	c.Status, c.UpdatedAt, c.LastUpdatedBy = Preparing, now, userID
	c.LiveData.LaunchedAt = &now
	c.LaunchProgress = &LaunchProgress{Contacts: contacts, LastProgressAt: now}
	return c
}

// Live is c as the end of its launch leaves it: live since now, refund
// credits given back.
func (c Campaign) Live(now time.Time, refund int64) Campaign {
	c.Status, c.UpdatedAt = Live, now
	c.LiveData.LiveAt = &now
	if c.LaunchProgress != nil {
		p := *c.LaunchProgress
		p.FinishedAt, p.LastProgressAt, p.Refunded = &now, now, &refund
		c.LaunchProgress = &p
	}
	return c
}

// Moved is c as the user's action act leaves it at now: in act's state,
// updated by userID, with reason (why it is in that state; "" for none).
// Completing it also fills CompletionData: who, when, and the campaign's
// counters at that moment.
func (c Campaign) Moved(act Action, now time.Time, userID, reason string) Campaign {
	c.Status, c.UpdatedAt, c.LastUpdatedBy, c.Reason = act.To, now, userID, reason
	if act.To == Completed {
		total, spent, feedback := c.TotalRecipients, c.LiveData.CreditsSpent, c.LiveData.FeedbackCount
		c.CompletionData = CompletionData{
			CompletedAt: &now, CompletedBy: userID, TotalRecipients: &total,
			StatusCounts: maps.Clone(c.LiveData.StatusCounts), CreditsSpent: &spent, FeedbackCount: &feedback,
		}
	}
	return c
}
