package gifting

import "slices"

// RecipientStatus is the state of a recipient (docs/api.md, the original
// interface; docs/resources.md).
type RecipientStatus string

// Recipient states, in the order a recipient moves through them. Pending is
// the state of a recipient whose invitation has not gone out yet.
const (
	RecipientPending          RecipientStatus = "pending"
	RecipientInviteSent       RecipientStatus = "invite_sent"
	RecipientAddressConfirmed RecipientStatus = "address_confirmed"
	RecipientProcessing       RecipientStatus = "processing"
	RecipientShipped          RecipientStatus = "shipped"
	RecipientInTransit        RecipientStatus = "in_transit"
	RecipientDelivered        RecipientStatus = "delivered"
	RecipientAcknowledged     RecipientStatus = "acknowledged"
	// RecipientExpired is the end of a recipient that did not confirm an
	// address within its campaign's claimExpiresInDays (or whose campaign
	// was completed first): its credits went back to the wallet. It is
	// off the journey: nothing moves into it but the expiry, nothing
	// moves out of it.
	RecipientExpired RecipientStatus = "expired"
	// RecipientDeclined is the end of a recipient that said "No thanks" on
	// its landing page before claiming: its credits went back to the
	// wallet and its emails stopped. Like expired, it is off the journey
	// (an extension of the original states): nothing moves out of it.
	RecipientDeclined RecipientStatus = "declined"
)

// RecipientJourney lists the states a recipient moves through, pending
// first; Rank is a position in it.
var RecipientJourney = []RecipientStatus{
	RecipientPending, RecipientInviteSent, RecipientAddressConfirmed, RecipientProcessing,
	RecipientShipped, RecipientInTransit, RecipientDelivered, RecipientAcknowledged,
}

// RecipientStatuses lists every recipient state: the journey, then
// expired and declined.
var RecipientStatuses = append(slices.Clip(RecipientJourney), RecipientExpired, RecipientDeclined)

// RecipientFilterStatuses are the status values allowed as filters (every
// state but pending).
var RecipientFilterStatuses = RecipientStatuses[1:]

// Rank is the position of s in a recipient's journey (RecipientJourney),
// -1 for expired, declined and an unknown state.
func (s RecipientStatus) Rank() int { return slices.Index(RecipientJourney, s) }

// Valid reports whether s is a known recipient state (expired included).
func (s RecipientStatus) Valid() bool { return slices.Contains(RecipientStatuses, s) }

// Ended reports whether s is an end off the journey (expired or
// declined): its credits went back and nothing moves it again.
func (s RecipientStatus) Ended() bool { return s == RecipientExpired || s == RecipientDeclined }

// NewStatusCounts returns a count of zero for every recipient status.
func NewStatusCounts() map[RecipientStatus]int64 {
	m := make(map[RecipientStatus]int64, len(RecipientStatuses))
	for _, s := range RecipientStatuses {
		m[s] = 0
	}
	return m
}
