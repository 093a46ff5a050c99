package dynamo

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// RecipientKit reads what recipients of c are built from (its template
// and, when it has one gift, that gift) in one BatchGetItem.
func (s *Store) RecipientKit(ctx context.Context, orgID string, camp campaign.Campaign, publicBaseURL string) (recipient.Kit, error) {
	c := camp.ForRecipients()
	items, err := s.batchGet(ctx, kitKeys(orgID, c))
	if err != nil {
		return recipient.Kit{}, err
	}
	kit, err := kitFrom(orgID, c, publicBaseURL, items)
	if err != nil {
		return kit, err
	}
	return kit, s.ensureEmailSet(ctx, orgID, &kit)
}

// kitKeys are the keys RecipientKit reads: the template and the single gift,
// each in the org's partition and the catalog's.
func kitKeys(orgID string, c recipient.Campaign) []item {
	var keys []item
	if id := c.TemplateID; id != "" {
		keys = append(keys, key(orgPK(orgID), templateSK(id)), key(orgPK(gifting.CatalogOrgID), templateSK(id)))
	}
	if ids := c.GiftIDs; len(ids) == 1 {
		keys = append(keys, key(orgPK(orgID), giftSK(ids[0])), key(orgPK(gifting.CatalogOrgID), giftSK(ids[0])))
	}
	return keys
}

// kitFrom builds the kit of c from items read with kitKeys (and possibly
// others, which it ignores). The org's own template or gift wins over the
// catalog's of the same id. A template that no longer exists means no
// emails: the recipient is still added, with an empty schedule.
func kitFrom(orgID string, c recipient.Campaign, publicBaseURL string, items []item) (recipient.Kit, error) {
	kit := recipient.NewKit(c, nil, nil, publicBaseURL)
	own := orgPK(orgID)
	var tmplOwn bool
	var giftOwn bool
	for _, it := range items {
		pk, sk := attrS(it, "PK"), attrS(it, "SK")
		switch {
		case c.TemplateID != "" && sk == templateSK(c.TemplateID):
			if tmplOwn {
				continue
			}
			var t gifting.Template
			if err := unmarshal(it, &t); err != nil {
				return kit, err
			}
			kit.Emails, tmplOwn = t.TemplateData.Emails, pk == own
		case len(c.GiftIDs) == 1 && sk == giftSK(c.GiftIDs[0]):
			if giftOwn {
				continue
			}
			var g gifting.Gift
			if err := unmarshal(it, &g); err != nil {
				return kit, err
			}
			kit.Gift, giftOwn = &g, pk == own
		}
	}
	return kit, nil
}

// attrS returns a string attribute of an item, "" when absent.
func attrS(it item, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// newRecipient builds a pending recipient of kit's campaign for contact
// (recipient.Kit.Build), named by storage: its id derived from the
// campaign and the contact, its page ids drawn.
func (s *Store) newRecipient(orgID string, kit recipient.Kit, contact gifting.Contact, sourceType, sourceID string) recipient.Recipient {
	c := kit.Campaign
	id := recipientIDFor(c.CampaignID, contact.ContactID)
	landing, claim := newPageIDs(gifting.PageRef{OrgID: orgID, CampaignID: c.CampaignID, RecipientID: id})
	return kit.Build(recipient.IDs{OrgID: orgID, RecipientID: id, LandingPageID: landing, ClaimPageID: claim},
		contact, sourceType, sourceID, s.Now())
}

// legacyRecipientItem is a recipient item of the first layout: the record
// as attributes, beside its version and what is kept with it.
type legacyRecipientItem struct {
	recipientRecord
	Ver      int64          `json:"ver"`
	Delays   map[string]int `json:"dly"`
	EmailSet string         `json:"es,omitempty"`
	Slice    string         `json:"ls,omitempty"`
}

// recipientItem is the stored form of sr: the record packed
// (recipientPackedAttr), its version and delays, its keys, and its Slim entry, whose attributes serve the
// list filters and sorts without reading the recipient:
//
//	srch  lower-cased "first last" (search)
//	st    status (filter, sort)
//	upd   updatedAt (sort)
//	fb    "1" when the recipient has feedback (filter)
//	au    " user1 user2 " assigned user ids (filter)
//
// its Order index keys, OPK (its campaign, status and whether it has
// feedback: recipientStatusOPK) and OSK (its LSK without the campaign's
// prefix: recipientCreationKey), its Sort index key,
// SSK (its last name, then its LSK: recipientNameSSK; the index's
// partition is its LPK), and,
// for legacy page ids, its Pages index key, pg (see pageKey).
//
//	srt   lower-cased first, last, email, company joined by \x1f (sorts)
func (s *Store) recipientItem(orgID string, sr recipient.Stored) (item, error) {
	r := sr.Recipient
	if sr.EmailSet != "" {
		r.StripEmails() // rendered again from the set when read
	} else {
		r.Emails.Shipped.Subject, r.Emails.Shipped.HTML = "", "" // rendered again when read (withEmails)
	}
	body, err := packRecipient(r)
	if err != nil {
		return nil, err
	}
	it := item{recipientPackedAttr: &types.AttributeValueMemberB{Value: body}}
	d := r.ContactDetails
	it["PK"], it["SK"] = str(orgPK(orgID)), str(recipientSK(r.CampaignID, r.RecipientID))
	it["LPK"], it["LSK"] = str(recipientsLPK(orgID, r.CampaignID)), str(recipientLSK(r.CampaignID, r.RecipientID, r.CreatedAt))
	// Its status partition (recipientstatus.go), in the same order.
	it["OPK"] = str(recipientStatusOPK(orgID, r.CampaignID, r.Status, r.Feedback.Has()))
	it["OSK"] = str(recipientCreationKey(r.CampaignID, attrS(it, "LSK")))
	if sr.Slice != "" {
		it["ls"] = str(sr.Slice)
	}
	it["srch"] = str(strings.ToLower(strings.TrimSpace(d.FirstName + " " + d.LastName)))
	it["st"] = str(string(r.Status))
	it["upd"] = str(gifting.FormatTime(r.UpdatedAt))
	it["srt"] = str(strings.ToLower(strings.Join([]string{d.FirstName, d.LastName, d.Email, d.Company}, sortSep)))
	// Its last-name entry (recipientnames.go), from the srt the Slim
	// partition's sort compares, so both orders agree.
	it["SSK"] = str(recipientNameSSK(r.CampaignID, attrS(it, "srt"), attrS(it, "LSK")))
	if r.Feedback.Has() {
		it["fb"] = str("1")
	}
	if len(r.AssignedUsers) > 0 {
		ids := make([]string, len(r.AssignedUsers))
		for i, u := range r.AssignedUsers {
			ids[i] = u.UserID
		}
		it["au"] = str(" " + strings.Join(ids, " ") + " ")
	}
	it["ver"] = num(sr.Version)
	// The page marks stay beside the record too, so a rewrite keeps the
	// condition that records each once (Store.MarkPage).
	if r.ViewedAt != nil {
		it["viewedAt"] = str(gifting.FormatTime(*r.ViewedAt))
	}
	if r.MeetingClickedAt != nil {
		it["meetingClickedAt"] = str(gifting.FormatTime(*r.MeetingClickedAt))
	}
	if gifting.LegacyPageID(r.LandingPageID) {
		it["pg"] = str(pageKey(r.LandingPageID))
	}
	// A recipient with an email still to send, or an expiry ahead, is due
	// at the earliest of them (see emails.go and expiry.go), so every write
	// of a recipient keeps its place in the due index in the same request.
	if at, ok := r.NextDue(); ok {
		for k, v := range dueAttrs(gifting.JobRecipientEmails, gifting.RecipientRef(r.CampaignID, r.RecipientID),
			orgPK(orgID), recipientSK(r.CampaignID, r.RecipientID), at) {
			it[k] = str(v)
		}
	}
	if sr.EmailSet != "" {
		it["es"] = str(sr.EmailSet)
	} else if len(sr.Delays) > 0 {
		d, err := marshal(sr.Delays)
		if err != nil {
			return nil, err
		}
		it["dly"] = &types.AttributeValueMemberM{Value: d}
	}
	return it, nil
}

// sortSep separates the fields of the srt attribute; it sorts before every
// printable character, so "ann" still sorts before "anna".
const sortSep = "\x1f"

// decodeRecipient reads a recipient item: the record packed with the
// dictionary (recipientPackedAttr), packed without it (recipientBodyAttr,
// the layout before), or the attributes of the layout before that, which
// items written by earlier versions keep.
func decodeRecipient(it item) (recipient.Stored, error) {
	var r recipient.Stored
	var packed, dict []byte
	if b, ok := it[recipientPackedAttr].(*types.AttributeValueMemberB); ok {
		packed, dict = b.Value, recipientDict
	} else if b, ok := it[recipientBodyAttr].(*types.AttributeValueMemberB); ok {
		packed = b.Value
	}
	if packed == nil {
		// The first layout: the record as attributes.
		var l legacyRecipientItem
		if err := unmarshal(it, &l); err != nil {
			return r, err
		}
		r = recipient.Stored{Recipient: l.recipient(), Version: l.Ver, Delays: l.Delays, EmailSet: l.EmailSet, Slice: l.Slice}
		r.Normalize()
		return r, nil
	}
	// Only the attributes beside the record: decoding the item into the
	// whole record's struct cost as much as unpacking the record.
	var a struct {
		Ver      int64          `json:"ver"`
		Delays   map[string]int `json:"dly"`
		EmailSet string         `json:"es"`
		Slice    string         `json:"ls"`
		// MarkPage sets viewedAt and meetingClickedAt in place, beside
		// the record.
		ViewedAt         *time.Time `json:"viewedAt"`
		MeetingClickedAt *time.Time `json:"meetingClickedAt"`
	}
	if err := unmarshal(it, &a); err != nil {
		return r, err
	}
	if err := unpackRecipient(packed, dict, &r.Recipient); err != nil {
		return r, err
	}
	r.Version, r.Delays, r.EmailSet, r.Slice = a.Ver, a.Delays, a.EmailSet, a.Slice
	if a.ViewedAt != nil {
		r.ViewedAt = a.ViewedAt
	}
	if a.MeetingClickedAt != nil {
		r.MeetingClickedAt = a.MeetingClickedAt
	}
	r.Normalize()
	return r, nil
}

// recipientPackedAttr holds a recipient item's record, packed
// (packRecipient): its JSON, about 2 KB once its emails are rendered from
// its email set rather than stored, deflated with recipientDict to about
// 400 bytes, which keeps the whole item, and so each write of it, within
// one write unit. The attributes beside it are the keys and what indexes,
// conditions and in-place updates need (see recipientItem).
const recipientPackedAttr = "rd"

// recipientBodyAttr held the record of items written before
// recipientPackedAttr: deflated without a dictionary. Read, never written.
const recipientBodyAttr = "rz"

// recipientDict is the preset dictionary of packed records: a recipient's
// JSON with its values left out, so what deflate has to spell out is
// mostly the values. Records packed with it can only be unpacked with it:
// it must never change. A better one would be a new attribute beside
// recipientPackedAttr.
var recipientDict = []byte(`{"recipientId":"","campaignId":"","organizationId":"","landingPageId":"","claimPageId":"",` +
	`"contactDetails":{"contactId":"","firstName":"","lastName":"","email":"","company":"","jobTitle":"",` +
	`"addressLine1":"","addressLine2":"","city":"","state":"","zip":"","country":"","phone":"","linkedInUrl":"","profileImage":""},` +
	`"sourceType":"contact_list","sourceId":"","status":"pending","createdAt":"2026-","updatedAt":"2026-","campaignName":"",` +
	`"giftDetails":{"giftId":"","name":"","price":0,"currency":"USD","selectedAt":null},` +
	`"selectedGift":{"giftId":"","name":"","price":0,"currency":"USD","description":"","imageUrl":"","selectedAt":null,"trackingLink":""},` +
	`"urls":{"landingPage":"https://","claimPage":"https://"},"personalization":{"giftCard":{}},` +
	`"emails":{"addressConfirmation":{"active":true,"scheduledTime":"","sent":false,"sentAt":null,"html":"","subject":""},` +
	`"reminder1":{"active":true,"scheduledTime":"","sent":false,"sentAt":null,"html":"","subject":""},` +
	`"reminder2":{"active":true,"scheduledTime":"","sent":false,"sentAt":null,"html":"","subject":""},` +
	`"postDelivery":{"active":true,"scheduledTime":"","sent":false,"sentAt":null,"html":"","subject":""},` +
	`"postAcknowledgement":{"active":true,"scheduledTime":"","sent":false,"sentAt":null,"html":"","subject":""}},` +
	`"feedback":{"rating":{"value":"","submittedAt":null},"message":[]},"shipmentInfo":{},"assignedUsers":[],` +
	`"creditsCharged":0,"viewedAt":null,"claimedAt":null,"address":null,"claimExpiresAt":null}`)

// packRecipient is the packed form of r: its JSON, deflated with
// recipientDict.
func packRecipient(r recipient.Recipient) ([]byte, error) {
	j, err := json.Marshal(recipientRecordOf(r))
	if err != nil {
		return nil, fmt.Errorf("pack recipient: %w", err)
	}
	var b bytes.Buffer
	w := packers.Get().(*flate.Writer)
	defer packers.Put(w)
	w.Reset(&b)
	if _, err := w.Write(j); err != nil {
		return nil, fmt.Errorf("pack recipient: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("pack recipient: %w", err)
	}
	return b.Bytes(), nil
}

// packers and unpackers keep deflate writers and readers for reuse: each
// holds hundreds of kilobytes of state, too much to allocate per recipient.
// A writer keeps its dictionary across Reset.
var (
	packers = sync.Pool{New: func() any {
		w, _ := flate.NewWriterDict(nil, flate.BestCompression, recipientDict) // fails only for a bad level
		return w
	}}
	unpackers = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}
)

// unpackRecipient decodes a record packed with dict (nil for none) into r.
func unpackRecipient(packed, dict []byte, r *recipient.Recipient) error {
	rd := unpackers.Get().(io.ReadCloser)
	defer unpackers.Put(rd)
	if err := rd.(flate.Resetter).Reset(bytes.NewReader(packed), dict); err != nil {
		return fmt.Errorf("unpack recipient: %w", err)
	}
	j, err := io.ReadAll(rd)
	if err != nil {
		return fmt.Errorf("unpack recipient: %w", err)
	}
	var rec recipientRecord
	if err := jsonv2.Unmarshal(j, &rec, unpackOptions); err != nil {
		return fmt.Errorf("unpack recipient: %w", err)
	}
	*r = rec.recipient()
	return nil
}

// unpackOptions decode a packed record at about 45% of encoding/json's
// cost (every recipient a page lists is unpacked): go-json-experiment's
// defaults, whose differences from encoding/json (names matched by case,
// invalid UTF-8 refused) cannot show on what packRecipient's
// encoding/json wrote.
var unpackOptions = jsonv2.DefaultOptionsV2()

// LoadRecipient reads a recipient of a campaign with its version, or
// recipient.ErrNoRecipient (recipient.ReadStore).
func (s *Store) LoadRecipient(ctx context.Context, orgID, campaignID, recipientID string) (recipient.Stored, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: key(orgPK(orgID), recipientSK(campaignID, recipientID)), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return recipient.Stored{}, fmt.Errorf("get recipient: %w", err)
	}
	if out.Item == nil || out.Item[recipientGoneAttr] != nil {
		return recipient.Stored{}, recipient.ErrNoRecipient
	}
	return s.readRecipient(ctx, out.Item)
}

// Recipient returns a recipient of a campaign of org, or
// recipient.ErrNoRecipient.
func (s *Store) Recipient(ctx context.Context, orgID, campaignID, recipientID string) (recipient.Recipient, error) {
	r, err := s.LoadRecipient(ctx, orgID, campaignID, recipientID)
	return r.Recipient, err
}

// CampaignRecipient returns a recipient of a campaign of org as the API
// shows it: recipient.ErrNoCampaign when its campaign is missing or
// deleted, recipient.ErrNoRecipient when it is missing (a deleted campaign's recipients stay stored for
// their expiry and refunds, but the tenant removed them). One
// BatchGetItem reads both.
func (s *Store) CampaignRecipient(ctx context.Context, orgID, campaignID, recipientID string) (recipient.Recipient, error) {
	rsk := recipientSK(campaignID, recipientID)
	got, err := s.batchGet(ctx, []item{key(orgPK(orgID), campaignSK(campaignID)), key(orgPK(orgID), rsk)})
	if err != nil {
		return recipient.Recipient{}, err
	}
	var camp, rec item
	for _, it := range got {
		if attrS(it, "SK") == rsk {
			rec = it
		} else {
			camp = it
		}
	}
	var c campaign.Campaign
	if camp != nil {
		var err error
		if c, err = decodeCampaign(camp); err != nil {
			return recipient.Recipient{}, err
		}
	}
	if camp == nil || c.IsDeleted {
		return recipient.Recipient{}, recipient.ErrNoCampaign
	}
	if rec == nil || rec[recipientGoneAttr] != nil {
		return recipient.Recipient{}, recipient.ErrNoRecipient
	}
	r, err := s.readRecipient(ctx, rec)
	return r.Recipient, err
}

// RecipientCampaign reads a campaign as the recipient slice needs it
// (campaign.Campaign.ForRecipients), strongly consistent:
// recipient.ErrNoCampaign when it is missing or deleted
// (recipient.ReadStore).
func (s *Store) RecipientCampaign(ctx context.Context, orgID, campaignID string) (recipient.Campaign, error) {
	c, err := s.LoadCampaign(ctx, orgID, campaignID)
	if errors.Is(err, campaign.ErrNotFound) {
		return recipient.Campaign{}, recipient.ErrNoCampaign
	}
	return c.ForRecipients(), err
}
