package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/csvexport"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/wallet"
)

// The CSV exports of a list's contacts, a campaign's recipients and the
// wallet's ledger (docs/api.md, "CSV exports"), in the orders export's
// form: text/csv pages of at most limit rows (csvexport.MaxRows) and
// csvexport.MaxBytes, each read from the cursor the page before gave in
// its Link header, so a page costs the same reads however deep it is.

// exportQuery reads an export's parameters: limit (1..csvexport.MaxRows,
// default the most) and cursor, which the handler or the use case checks.
func exportQuery(r *http.Request) (*query, int, string) {
	q := newQuery(r)
	limit, cursor := q.integer("limit", csvexport.MaxRows, 1, csvexport.MaxRows), q.filter("cursor")
	if len(cursor) > maxCursor {
		q.problems.Add("cursor", "must be at most "+strconv.Itoa(maxCursor)+" characters, as a Link gives it")
	}
	return q, limit, cursor
}

// maxCursor bounds a cursor: every cursor an export hands out is a sort
// key or two, which DynamoDB bounds to 1 KB.
const maxCursor = 1024

// sendRows answers an export page of the rows read (cursors[i] the
// cursor that starts right after rows[i]; next the cursor after the last,
// "" when none follows). A row that would take the page past
// csvexport.MaxBytes ends it there, and the Link goes on from the row
// before.
func sendRows[T any](w http.ResponseWriter, r *http.Request, filename string, header []string, limit int,
	rows []T, cursors []string, next string, row func(T) []string) {
	p, next := csvexport.Fill(header, csvexport.MaxBytes, rows, cursors, next, row)
	link := ""
	if next != "" {
		link = csvexport.NextURL(r.URL.Path, url.Values{"limit": {strconv.Itoa(limit)}}, next)
	}
	p.Send(w, filename, link)
}

// exportOf answers an export of the collection the path value idName
// names (a list, a campaign), file <name>-<id>.csv: read reads a page of
// it for the caller's organization, its rows with a cursor each and the
// next page's cursor.
func exportOf[T any](w http.ResponseWriter, r *http.Request, idName, name string, header []string, row func(T) []string,
	read func(ctx context.Context, orgID, id, cursor string, limit int) ([]T, []string, string, error)) error {
	q, limit, cursor := exportQuery(r)
	if err := q.err(); err != nil {
		return err
	}
	id := r.PathValue(idName)
	rows, cursors, next, err := read(r.Context(), principal(r.Context()).OrgID, id, cursor, limit)
	if err != nil {
		return err
	}
	sendRows(w, r, name+"-"+id+".csv", header, limit, rows, cursors, next, row)
	return nil
}

// exportContacts serves GET /contact-lists/{listId}/contacts/export.
func (s *Server) exportContacts(w http.ResponseWriter, r *http.Request) error {
	return exportOf(w, r, "listId", "contacts", contactColumns, contactRow, s.memberRows)
}

// contactRow is a contact's row of contactColumns; a cell of several
// values (tags, other emails, lists) separates them with "; ".
func contactRow(c contact.Contact) []string {
	tags := make([]string, len(c.Tags))
	for i, t := range c.Tags {
		tags[i] = t.Name
	}
	var others []string
	for _, e := range c.Emails {
		if !strings.EqualFold(e.Email, c.MailID) {
			others = append(others, e.Email)
		}
	}
	a := c.Address
	return []string{c.ContactID, c.MailID, c.FirstName, c.LastName, c.FullName, c.JobTitle, c.CompanyName,
		c.PhoneNumber, c.LinkedinURL, a.Line1, a.Line2, a.City, a.State, a.Zip, a.Country, strings.Join(tags, "; "),
		c.Notes, strings.Join(others, "; "), strings.Join(c.ListIDs, "; "), gifting.FormatTime(c.CreatedAt),
		gifting.FormatTime(c.UpdatedAt)}
}

// contactColumns are the contacts export's header row: bulk add's field
// names where it has them, so a file exported can be edited and sent back.
var contactColumns = []string{"contactId", "mailId", "firstName", "lastName", "fullName", "jobTitle", "companyName",
	"phoneNumber", "linkedinUrl", "street", "street2", "city", "state", "zipCode", "country", "tags", "notes",
	"otherEmails", "listIds", "createdAt", "updatedAt"}

// memberRows reads an export page of a list's members (exportOf).
func (s *Server) memberRows(ctx context.Context, orgID, listID, cursor string, limit int) ([]contact.Contact, []string, string, error) {
	p, err := s.contacts.MembersAfter(ctx, orgID, listID, cursor, limit)
	return p.Contacts, p.Cursors, p.Next, err
}

// exportRecipients serves GET /campaigns/{campaignId}/recipients/export.
func (s *Server) exportRecipients(w http.ResponseWriter, r *http.Request) error {
	return exportOf(w, r, "campaignId", "recipients", recipientColumns, recipientRow, s.recipientRows)
}

// recipientRow is a recipient's row of recipientColumns: its contact, the
// gift chosen (the one held until then), the address it confirmed, its
// order's tracking (shipmentInfo), its feedback and its dates.
func recipientRow(rc recipient.Recipient) []string {
	d, g := rc.ContactDetails, rc.SelectedGift
	if g.GiftID == "" {
		g.GiftID, g.Name, g.Price, g.Currency = rc.GiftDetails.GiftID, rc.GiftDetails.Name, rc.GiftDetails.Price, rc.GiftDetails.Currency
	}
	var a recipient.ShippingAddress
	if rc.Address != nil {
		a = *rc.Address
	}
	info := func(k string) string { v, _ := rc.ShipmentInfo[k].(string); return v }
	tracking := info("trackingUrl")
	if tracking == "" {
		tracking = g.TrackingLink
	}
	rating, texts, links, feedbackAt := feedbackCells(rc.Feedback)
	price := ""
	if g.GiftID != "" {
		price = strconv.FormatFloat(g.Price, 'f', -1, 64)
	}
	return []string{rc.RecipientID, string(rc.Status), d.Email, d.FirstName, d.LastName, d.Company, d.JobTitle,
		d.Phone, d.LinkedInURL, d.ContactID, g.GiftID, g.Name, info("variantName"), price, g.Currency, a.Line1, a.Line2, a.City,
		a.State, a.Zip, a.Country, a.PhoneNumber, info("orderId"), info("orderStatus"), info("carrier"),
		info("trackingNumber"), tracking, rating, texts, links, strconv.FormatInt(rc.CreditsCharged, 10),
		rc.SourceType, gifting.FormatTime(rc.CreatedAt), timeCell(rc.ViewedAt), timeCell(rc.GiftDetails.SelectedAt),
		timeCell(rc.ClaimedAt), info("shippedAt"), info("deliveredAt"), feedbackAt, timeCell(rc.ClaimExpiresAt),
		gifting.FormatTime(rc.UpdatedAt)}
}

// feedbackCells are a recipient's feedback as cells: the rating, the
// messages' texts and links (one a line), and when it last said anything.
func feedbackCells(f recipient.Feedback) (rating, texts, links, at string) {
	var last time.Time
	if f.Rating != nil {
		rating, last = f.Rating.Value, f.Rating.SubmittedAt
	}
	var ts, ls []string
	for _, m := range f.Message {
		if m.Text != "" {
			ts = append(ts, m.Text)
		}
		if m.URL != "" {
			ls = append(ls, m.URL)
		}
		if m.SubmittedAt.After(last) {
			last = m.SubmittedAt
		}
	}
	if !last.IsZero() {
		at = gifting.FormatTime(last)
	}
	return rating, strings.Join(ts, "\n"), strings.Join(ls, "\n"), at
}

// timeCell is t in the API's time format, "" for none.
func timeCell(t *time.Time) string {
	if t == nil {
		return ""
	}
	return gifting.FormatTime(*t)
}

// recipientColumns are the recipients export's header row.
var recipientColumns = []string{"recipientId", "status", "email", "firstName", "lastName", "company", "jobTitle",
	"phone", "linkedinUrl", "contactId", "giftId", "giftName", "giftOption", "giftPrice", "giftCurrency", "shipLine1",
	"shipLine2", "shipCity", "shipState", "shipZip", "shipCountry", "shipPhone", "orderId", "orderStatus",
	"carrier", "trackingNumber", "trackingUrl", "feedbackRating", "feedbackMessages", "feedbackLinks",
	"creditsCharged", "sourceType", "createdAt", "viewedAt", "giftSelectedAt", "claimedAt", "shippedAt",
	"deliveredAt", "feedbackAt", "claimExpiresAt", "updatedAt"}

// recipientRows reads an export page of a campaign's recipients
// (exportOf).
func (s *Server) recipientRows(ctx context.Context, orgID, campaignID, cursor string, limit int) ([]recipient.Recipient, []string, string, error) {
	rows, err := s.campaigns.RecipientsAfter(ctx, orgID, campaignID, cursor, limit)
	return rows.Recipients, rows.Cursors, rows.Next, err
}

// ledgerColumns are the ledger export's header row.
var ledgerColumns = []string{"entryId", "type", "amount", "balanceAfter", "currency", "campaignId", "recipientId",
	"reason", "createdAt"}

// exportLedger serves GET /wallet/ledger/export: the ledger newest first,
// amounts in whole credits as GET /wallet gives them; the cursor is an
// entry id, as GET /wallet's ledger.nextCursor.
func (s *Server) exportLedger(w http.ResponseWriter, r *http.Request) error {
	q, limit, cursor := exportQuery(r)
	if cursor != "" && !gifting.IsNewID(cursor) {
		q.problems.Add("cursor", "must be a cursor a previous page's Link gave (an entry id)")
	}
	if err := q.err(); err != nil {
		return err
	}
	st, err := s.wallets.Statement(r.Context(), principal(r.Context()).OrgID, cursor, gifting.PageRequest{Page: 1, Limit: limit})
	if err != nil {
		return err
	}
	cursors := make([]string, len(st.Entries))
	for i, e := range st.Entries {
		cursors[i] = e.EntryID
	}
	cur := st.Wallet.Currency
	sendRows(w, r, "ledger.csv", ledgerColumns, limit, st.Entries, cursors, st.Next,
		func(e wallet.Entry) []string { return ledgerRow(e, cur) })
	return nil
}

// ledgerRow is an entry's row of ledgerColumns.
func ledgerRow(e wallet.Entry, currency string) []string {
	return []string{e.EntryID, string(e.Type), strconv.FormatInt(e.Amount, 10), strconv.FormatInt(e.BalanceAfter, 10),
		currency, e.CampaignID, e.RecipientID, e.Reason, gifting.FormatTime(e.CreatedAt)}
}
