package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/wire"
)

func (s *Server) recipientRoutes() []route {
	return append(append(s.orderRoutes(), s.sandboxRoutes()...), []route{
		{pattern: "POST /api/campaigns/campaigns/{campaignId}/add-recipient", handle: s.addRecipient, rate: gifting.RateAddRecipient, scope: gifting.ScopeSpend},
		{pattern: "GET /api/campaigns/campaigns/{campaignId}/recipients", handle: s.campaignRecipients},
		{pattern: "GET /api/campaigns/campaigns/{campaignId}/recipients/export", handle: s.exportRecipients},
		{pattern: "GET /api/campaigns/{campaignId}/recipients", handle: s.guideRecipients},
		{pattern: "GET /api/campaigns/recipients/express-send/campaign/{campaignId}", handle: s.expressSendRecipients},
		{pattern: "GET /api/campaigns/campaigns/{campaignId}/recipients/{recipientId}", handle: s.getRecipient},
		{pattern: "POST /api/campaigns/campaigns/{campaignId}/recipients/{recipientId}/status", handle: s.moveRecipient},
		{pattern: "POST /api/campaigns/campaigns/{campaignId}/recipients/{recipientId}/feedback", handle: s.recipientFeedback},
		{pattern: "POST /api/campaigns/campaigns/{campaignId}/recipients/{recipientId}/resend", handle: s.resendInvitation},
		{pattern: "PATCH /api/campaigns/campaigns/{campaignId}/recipients/{recipientId}", handle: s.updateRecipient},
		{pattern: "GET /api/campaigns/wallet", handle: s.wallet},
		{pattern: "GET /api/campaigns/wallet/ledger/export", handle: s.exportLedger},
	}...)
}

// addRecipientBody is the body of add-recipient (the original interface).
type addRecipientBody struct {
	ContactDetails *contactDetailsInput `json:"contactDetails"`
	SourceType     string               `json:"sourceType,omitempty"`
	// Message and SenderName are the sender's note to this recipient and
	// its signature (recipient.CheckNote).
	Message    string `json:"message,omitempty"`
	SenderName string `json:"senderName,omitempty"`
}

// contactDetailsInput is add-recipient's contactDetails (the original
// interface). Only email is required: it is how contacts are matched.
type contactDetailsInput struct {
	Email        string           `json:"email"`
	FirstName    string           `json:"firstName,omitempty"`
	LastName     string           `json:"lastName,omitempty"`
	CompanyName  string           `json:"companyName,omitempty"`
	JobTitle     string           `json:"jobTitle,omitempty"`
	PhoneNumber  string           `json:"phoneNumber,omitempty"`
	LinkedinURL  string           `json:"linkedinUrl,omitempty"`
	ProfileImage string           `json:"profileImage,omitempty"`
	Locale       string           `json:"locale,omitempty"`
	Address      *gifting.Address `json:"address,omitempty"`
}

// contactInput validates the body and returns the contact it names.
// Problems are reported under the body's own field names.
func (b *addRecipientBody) contactInput() (gifting.ContactInput, error) {
	var p gifting.Problems
	if b.SourceType != "" && !slices.Contains(recipient.SourceTypes, b.SourceType) {
		p.Add("sourceType", "must be one of "+strings.Join(recipient.SourceTypes, ", "))
	}
	d := b.ContactDetails
	if d == nil {
		p.Add("contactDetails", "is required")
		return gifting.ContactInput{}, p.Err()
	}
	in := gifting.ContactInput{
		MailID: d.Email, FirstName: d.FirstName, LastName: d.LastName, CompanyName: d.CompanyName,
		JobTitle: d.JobTitle, PhoneNumber: d.PhoneNumber, LinkedinURL: d.LinkedinURL, ProfileImage: d.ProfileImage,
		Locale: d.Locale,
	}
	if d.Address != nil {
		in.Address = *d.Address
	}
	if err := contact.CheckCarried(&in); err != nil {
		var e *gifting.Error
		if asError(err, &e) {
			for field, problem := range e.Details {
				if field == "mailId" {
					field = "email"
				}
				p.Add("contactDetails."+field, problem)
			}
		}
	}
	return in, p.Err()
}

func (s *Server) addRecipient(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p := principal(ctx)
	campaignID := r.PathValue("campaignId")
	var body addRecipientBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	contact, err := body.contactInput()
	if err != nil {
		return err
	}
	key, err := idempotencyKey(r, "add-recipient", campaignID, body)
	if err != nil {
		return err
	}
	sourceType := body.SourceType
	if sourceType == "" {
		sourceType = recipient.DefaultSourceType
	}
	res, err := s.recipients.Add(ctx, recipient.AddInput{
		OrgID: p.OrgID, CampaignID: campaignID, Contact: contact, SourceType: sourceType,
		Idempotency: replayable(key, http.StatusOK, func(res recipient.Added) any { return wire.AddedRecipientOf(res) }),
		AssignTo:    recipient.AssignedUser{UserID: p.UserID, UserName: p.UserID},
		Message:     strings.TrimSpace(body.Message), SenderName: strings.TrimSpace(body.SenderName),
	})
	if err != nil || res.Replay != nil {
		return writeStored(w, res.Replay, err)
	}
	writeJSON(w, http.StatusOK, wire.AddedRecipientOf(res.Response))
	return nil
}

// idempotencyKey reads the Idempotency-Key header: nil when absent. The
// request hash covers what the request asks for (the path's ids and the
// decoded body), so the same request with other whitespace or field order
// is still a retry.
func idempotencyKey(r *http.Request, scope, target string, body any) (*gifting.IdempotencyKey, error) {
	k := r.Header.Get("Idempotency-Key")
	if k == "" {
		return nil, nil
	}
	if len(k) > 255 || strings.IndexFunc(k, func(c rune) bool { return c < 0x21 || c > 0x7e }) >= 0 {
		var p gifting.Problems
		p.Add("Idempotency-Key", "must be 1 to 255 visible ASCII characters, e.g. a UUID")
		return nil, p.Err()
	}
	canonical, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	h.Write([]byte(scope + "\n" + target + "\n"))
	h.Write(canonical)
	return &gifting.IdempotencyKey{Scope: scope, Key: k, Hash: hex.EncodeToString(h.Sum(nil))}, nil
}

func (s *Server) getRecipient(w http.ResponseWriter, r *http.Request) error {
	rc, err := s.recipients.Get(r.Context(), principal(r.Context()).OrgID, r.PathValue("campaignId"), r.PathValue("recipientId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Recipient retrieved", wire.RecipientOf(rc))
	return nil
}

// statusBody is the body of the recipient status move.
type statusBody struct {
	Status gifting.RecipientStatus `json:"status"`
}

func (s *Server) moveRecipient(w http.ResponseWriter, r *http.Request) error {
	var body statusBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if !body.Status.Valid() {
		var p gifting.Problems
		p.Add("status", "must be one of "+strings.Join(statusNames(gifting.RecipientStatuses), ", "))
		return p.Err()
	}
	rc, err := s.recipients.Move(r.Context(), principal(r.Context()).OrgID, r.PathValue("campaignId"), r.PathValue("recipientId"), body.Status)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Recipient status updated", wire.RecipientOf(rc))
	return nil
}

// feedbackBody is the body of the recipient feedback submission.
type feedbackBody struct {
	Rating  string        `json:"rating"`
	Message *feedbackText `json:"message"`
}

type feedbackText struct {
	Type string `json:"type"`
	Text string `json:"text"`
	URL  string `json:"url"`
}

func (s *Server) recipientFeedback(w http.ResponseWriter, r *http.Request) error {
	var body feedbackBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	var msg *recipient.FeedbackMessage
	if m := body.Message; m != nil {
		msg = &recipient.FeedbackMessage{Type: m.Type, Text: m.Text, URL: m.URL}
	}
	if err := recipient.ValidateFeedback(body.Rating, msg); err != nil {
		return err
	}
	rc, err := s.recipients.Feedback(r.Context(), principal(r.Context()).OrgID, r.PathValue("campaignId"),
		r.PathValue("recipientId"), body.Rating, msg)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Feedback recorded", wire.RecipientOf(rc))
	return nil
}

func statusNames(ss []gifting.RecipientStatus) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}
