package recipient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/giftcampaign/service/shared/giftcodes"
	"github.com/giftcampaign/service/shared/gifting"
)

// The reveal of a digital gift's code: on its recipient's landing page,
// opened from its sealed form when the page is served, and in its
// delivered email only when the organization opted in
// (gifting.Branding.DigitalCodesInEmail); never kept in clear, never in a
// list, a webhook or a log line.

// CodeOpener opens a sealed code: the sealer of gift codes (their own KMS
// encryption context, which only the functions that upload or reveal
// codes may use).
type CodeOpener interface {
	Open(ctx context.Context, sealed, owner string) ([]byte, error)
}

// CodeStore reads an assigned code.
type CodeStore interface {
	// AssignedCode reads code codeID of orgID's gift giftID: its sealed
	// secret and the recipient it was assigned to (campaign and recipient
	// ids, empty when unassigned); ErrNoCode when there is none.
	AssignedCode(ctx context.Context, orgID, giftID, codeID string) (sealed, campaignID, recipientID string, err error)
}

// ErrNoCode: no code of that id in the gift's pool.
var ErrNoCode = errors.New("no such code")

// RevealCode opens the code p's recipient was given by its claim of a
// digital gift: nil when it holds none (a physical gift, not claimed). The
// code must be assigned to this very recipient, or it is not shown.
//
// Errors: SERVICE_UNAVAILABLE (no key configured, or KMS failing); an
// internal error when the code is missing or held by another recipient.
func (s *Pages) RevealCode(ctx context.Context, p Page) (*giftcodes.Secret, error) {
	return s.app.openCode(ctx, p.Recipient)
}

// openCode opens the code r was given by its claim of a digital gift (see
// RevealCode): for its landing page, and for its delivered email when
// the organization opted in.
func (a *App) openCode(ctx context.Context, r Recipient) (*giftcodes.Secret, error) {
	id := giftcodes.Assigned(r.ShipmentInfo)
	if id == "" {
		return nil, nil
	}
	org, gift := r.OrganizationID, r.SelectedGift.GiftID
	sealed, campaignID, recipientID, err := a.store.AssignedCode(ctx, org, gift, id)
	if err != nil {
		return nil, fmt.Errorf("read the recipient's code: %w", err)
	}
	if campaignID != r.CampaignID || recipientID != r.RecipientID {
		return nil, fmt.Errorf("code %s of gift %s is not assigned to recipient %s", id, gift, r.RecipientID)
	}
	if a.cfg.Codes == nil {
		return nil, gifting.Unavailable(errors.New("no key is configured to open gift codes"))
	}
	plain, err := a.cfg.Codes.Open(ctx, sealed, giftcodes.CodeOwner(org, gift, id))
	if err != nil {
		return nil, gifting.Unavailable(fmt.Errorf("open the recipient's code: %w", err))
	}
	var sec giftcodes.Secret
	if err := json.Unmarshal(plain, &sec); err != nil {
		return nil, fmt.Errorf("decode the recipient's code: %w", err)
	}
	return &sec, nil
}
