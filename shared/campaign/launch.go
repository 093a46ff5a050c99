package campaign

import (
	"errors"
	"fmt"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// Launch is the outcome of accepting a launch: what was paid and what is
// left.
type Launch struct {
	CampaignID          string
	Status              Status
	Contacts            int64
	CreditsPerRecipient int64
	CreditsDeducted     int64
	RemainingBalance    int64
}

// LaunchRecord is the record of a campaign's launch: what was paid and how
// far the launch job got. Created is counted in the same transactions as
// the recipients it counts, so the refund at the end is exact even when
// slices run twice.
type LaunchRecord struct {
	CampaignID          string
	ListIDs             []string
	Contacts            int64
	CreditsPerRecipient int64
	Debited             int64
	Created             int64
	Refunded            int64
	// Cursor is where the next slice starts; "" before the first.
	Cursor string
	// Claim is the claim of the slice in progress, nil when none.
	Claim *SliceClaim
	// KeyedOnly says the campaign can have no recipient in the legacy
	// layout (a marker beside a random id): it had none when it was
	// launched by code that writes none. Records of earlier launches lack
	// it, so their slices look for the markers.
	KeyedOnly  bool
	StartedBy  string
	StartedAt  time.Time
	ProgressAt time.Time
	FinishedAt *time.Time
}

// CheckLaunchable says why c cannot be launched, or nil: a CONFLICT when it
// is not a draft, has no contact list, or has no gifts and no price of its
// own. It needs nothing but the campaign, so it runs before anything else
// is read.
func CheckLaunchable(c Campaign) error {
	switch {
	case !CanMove(c.Status, Preparing):
		return c.NotDraft("launched")
	case len(c.CampaignData.ContactListIDs) == 0:
		return gifting.Errorf(gifting.CodeConflict, "the campaign has no contact list; set contactListIds before launching")
	case len(c.CampaignData.GiftIDs) == 0 && !c.CampaignData.PriceSet:
		return gifting.Errorf(gifting.CodeConflict, "the campaign has no gifts; set campaignData.giftIds before launching")
	}
	return nil
}

// ListMembers is one list of a launching campaign as read: its
// contactCount and the member ids its member keys hold.
type ListMembers struct {
	Count int64
	IDs   []string
}

// CountContacts is the number of contacts a launch pays for: the size of
// the union of the lists' member ids, so a contact in two lists is paid
// once, and at least each list's contactCount. Neither alone will do: an
// import moves a list's count after writing each chunk, so it trails the
// members while one runs and for good when one died in between (a launch
// that paid for the count would leave the members past it uninvited), and
// the index the member keys come from trails the table by a moment in AWS
// (a launch right after an import would see too few). A contact paid for
// and not written is refunded at the end.
func CountContacts(lists []ListMembers) int64 {
	seen := map[string]bool{}
	var counted int64
	for _, l := range lists {
		counted = max(counted, l.Count)
		for _, id := range l.IDs {
			seen[id] = true
		}
	}
	return max(int64(len(seen)), counted)
}

// OwnRefs are the resources c refers to that a launch's transaction checks
// still exist: its template (t, nil when it has none) and gifts when they
// are the organization's own (a tenant cannot delete the service
// catalog's), and its contact lists. A delete that commits first fails
// the launch; one that comes after sees a campaign that is no longer a
// draft.
func OwnRefs(c Campaign, t *gifting.Template, gifts []gifting.Gift) []gifting.Ref {
	var refs []gifting.Ref
	if t != nil && !t.IsDelightloop {
		refs = append(refs, gifting.Ref{Kind: gifting.RefTemplate, ID: t.TemplateID})
	}
	for _, g := range gifts {
		if !g.IsDelightloop {
			refs = append(refs, gifting.Ref{Kind: gifting.RefGift, ID: g.GiftID})
		}
	}
	for _, id := range c.CampaignData.ContactListIDs {
		refs = append(refs, gifting.Ref{Kind: gifting.RefContactList, ID: id})
	}
	return refs
}

// RefGoneError is the CONFLICT of a launch whose campaign refers to a
// deleted resource.
func RefGoneError(ref gifting.Ref) error {
	return gifting.Errorf(gifting.CodeConflict, "%s %q of the campaign no longer exists; update the campaign before launching", ref.Kind, ref.ID)
}

// RefMissing is the error of a launch whose read of ref failed with err: a
// NOT_FOUND is the CONFLICT RefGoneError, anything else err.
func RefMissing(err error, ref gifting.Ref) error {
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return RefGoneError(ref)
	}
	return err
}

// GiftsMissing is the error of a launch whose read of its gifts failed
// with err: a NOT_FOUND (naming the gift) is a CONFLICT, anything else err.
func GiftsMissing(err error) error {
	var missing *gifting.Error
	if errors.As(err, &missing) && missing.Code == gifting.CodeNotFound {
		return gifting.Errorf(gifting.CodeConflict, "%s; it was deleted: update the campaign before launching", missing.Message)
	}
	return err
}

// LaunchState is what deciding a launch needs, loaded: the campaign as
// read, the contacts of its lists (CountContacts), its gifts as read and
// the references its transaction checks (OwnRefs).
type LaunchState struct {
	OrgID    string
	Campaign Campaign
	Contacts int64
	Gifts    []gifting.Gift
	Refs     []gifting.Ref
	UserID   string
	Now      time.Time
}

// LaunchPlan is an accepted launch, ready to commit in one transaction
// once the wallet's change is decided (Paying).
type LaunchPlan struct {
	OrgID string
	// Campaign is the draft as read: the move to preparing is conditioned
	// on it (its UpdatedAt), so an edit since fails the launch.
	Campaign Campaign
	// Launched is the campaign as the launch leaves it, and the data of
	// the campaign.launched message.
	Launched Campaign
	// Record is the launch record, due for the scheduler from now on.
	Record LaunchRecord
	// Debit is the wallet's change: contacts × price; Wallet its plan,
	// decided by wallet.Decide on every attempt.
	Debit  wallet.Change
	Wallet wallet.Plan
	// Refs are checked to still exist in the same transaction.
	Refs []gifting.Ref
	// Messages are the change messages besides the wallet's own.
	Messages []gifting.Change
	// Answer is the launch's outcome, with the balance the wallet's plan
	// leaves once Paying; Response its answer recorded under the
	// request's idempotency key (nil: none).
	Answer   Launch
	Response *Response
}

// DecideLaunch accepts the launch of st.Campaign (which CheckLaunchable
// passed) or refuses it: a CONFLICT for a price stored out of bounds or
// below its catalog gifts' (as add-recipient: it takes nobody) or lists
// without contacts, INSUFFICIENT_CREDITS when contacts × price is more
// than any wallet can hold. The plan takes the credits of every contact
// (Debit), moves the campaign draft → preparing and writes the launch
// record; the launch job then writes the recipients, and its finish gives
// back the credits of the contacts that did not become recipients, so the
// launch costs exactly the recipients created × price.
func DecideLaunch(st LaunchState) (LaunchPlan, error) {
	c := st.Campaign
	if err := c.PriceOutOfBounds(); err != nil {
		return LaunchPlan{}, err
	}
	if err := c.UnderPriced(st.Gifts); err != nil {
		return LaunchPlan{}, err
	}
	if st.Contacts == 0 {
		return LaunchPlan{}, gifting.Errorf(gifting.CodeConflict, "the campaign's contact lists have no contacts; add contacts before launching")
	}
	price := c.CampaignData.CreditsPerRecipient
	debited, err := wallet.MulCredits(st.Contacts, price)
	if err != nil {
		return LaunchPlan{}, err
	}
	launched := c.Launched(st.Now, st.UserID, st.Contacts)
	return LaunchPlan{
		OrgID: st.OrgID, Campaign: c, Launched: launched,
		Record: LaunchRecord{
			CampaignID: c.CampaignID, ListIDs: c.CampaignData.ContactListIDs, Contacts: st.Contacts,
			CreditsPerRecipient: price, Debited: debited, StartedBy: st.UserID, StartedAt: st.Now, ProgressAt: st.Now,
			KeyedOnly: c.TotalRecipients == 0,
		},
		Debit: wallet.Change{OrgID: st.OrgID, Type: wallet.Debit, Delta: -debited, CampaignID: c.CampaignID,
			Reason: fmt.Sprintf("campaign launch: %d contacts × %d credits", st.Contacts, price)},
		Refs:     st.Refs,
		Messages: []gifting.Change{gifting.NewChange(gifting.ChangeCampaignLaunched, launched)},
		Answer: Launch{CampaignID: c.CampaignID, Status: Preparing, Contacts: st.Contacts, CreditsPerRecipient: price,
			CreditsDeducted: debited},
	}, nil
}

// Paying is p with the wallet's plan w decided for its debit, and the
// balance it leaves in the answer.
func (p LaunchPlan) Paying(w wallet.Plan) LaunchPlan {
	p.Wallet, p.Answer.RemainingBalance = w, w.After
	return p
}

// LaunchRaced is the CONFLICT of a launch whose move of the draft failed:
// the campaign now is now (read again), a draft edited meanwhile or no
// longer a draft (another launch got there first).
func LaunchRaced(now Campaign) error {
	if now.Status == Draft {
		return gifting.Errorf(gifting.CodeConflict, "the campaign was edited while it was being launched; launch it again")
	}
	return now.NotDraft("launched")
}

// AlreadyLaunched is the CONFLICT of a launch that found the campaign's
// launch record.
func AlreadyLaunched(campaignID string) error {
	return gifting.Errorf(gifting.CodeConflict, "campaign %q was already launched", campaignID)
}
