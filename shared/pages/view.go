package pages

import (
	"bytes"
	"cmp"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/giftcampaign/service/shared/branding"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/i18n"
	"github.com/giftcampaign/service/shared/recipient"
)

// view is what the page template renders. Only what a recipient may see
// goes in: never the email, the organization's or the recipient's ids.
type view struct {
	View  string // landing, claim or problem
	Title string
	CSS   template.CSS
	// Lang is the language the page is written in (i18n.Choose): the
	// template's texts and <html lang>.
	Lang i18n.Lang

	Sender, CampaignName, FirstName, Message string
	// Hello is the greeting headings start with ("Hi Ada,", "Hallo Ada,").
	Hello string
	// The organization's branding: its logo, its colour (BrandCSS sets
	// the pages' --brand), the sender's note and who signs it, and its
	// footer line.
	Logo, Note, NoteBy, OrgFooter string
	BrandCSS                      template.CSS
	Notice, Alert                 string
	Errors                        map[string]string

	// Landing page before the claim, and the claim form.
	Gifts    []giftView
	ClaimURL string

	// Landing page after "No thanks", and the button's action before.
	Declined      bool
	DeclineAction string

	// The meeting link's call to action: first on the page while a
	// required one is not followed yet (then without ClaimURL), else last.
	MeetingFirst, MeetingLast *meetingView

	// Landing page after the claim.
	Claimed, Delivered, Acknowledged, FeedbackOpen, FeedbackGiven bool
	// Ended is "cancelled" or "failed" for an order that will not arrive
	// (the heading says so, not "on its way").
	Ended                                                   string
	Selected                                                giftView
	Steps                                                   []step
	AddressText                                             string
	AcknowledgeAction, FeedbackAction, Rating, FeedbackText string

	// Claim form. NoAddress: every gift to choose from is digital, so no
	// address is asked; SomeDigital: one is, so the address is optional.
	ClaimAction            string
	Fields                 []field
	NoAddress, SomeDigital bool

	// Code is a digital gift's code, on its recipient's landing page only.
	Code *codeView

	// Problem pages.
	Heading, Text, LandingURL string

	// Unsubscribe page: the button's action until Unsubscribed.
	UnsubscribeAction string
	Unsubscribed      bool
}

type giftView struct {
	ID, Name, Description, ImageURL string
	// Option is the variant the recipient chose (after the claim).
	Option  string
	Checked bool
	// Variants are the gift's options on the claim form (sizes, colours),
	// those out of stock shown unavailable; Error is the problem with the
	// option chosen, beside the gift's options.
	Variants []variantView
	Error    string
}

// variantView is one option of a gift on the claim form.
type variantView struct {
	ID, Name         string
	Checked, SoldOut bool
}

// meetingView is the landing page's meeting call to action: the pages'
// own meeting route (never the stored URL itself, which only the route's
// redirect reveals), who the meeting is with, and whether it must come
// before the claim.
type meetingView struct {
	URL, With string
	Due       bool
}

// codeView is a digital gift's code as its recipient's landing page shows
// it: the code, its PIN and where it is redeemed.
type codeView struct{ Code, PIN, URL string }

// field is one input of the claim form, or a row of them.
type field struct {
	Name, Label, Hint, Type, Value, Autocomplete, Error string
	Required                                            bool
	Max                                                 int
	Row                                                 []field
}

func giftOf(g gifting.Gift, checked bool) giftView {
	v := giftView{ID: g.GiftID, Name: g.Name, Description: g.ShortDescription, Checked: checked}
	if len(g.ImageURLs) > 0 {
		v.ImageURL = secureImage(g.ImageURLs[0])
	}
	return v
}

// secureImage is an image URL as the pages show it: over https. The pages
// load images from https only (their Content-Security-Policy), so an http
// URL a catalog holds is asked for over https, as a browser upgrades a
// page's mixed content itself.
func secureImage(u string) string {
	if rest, ok := strings.CutPrefix(u, "http://"); ok {
		return "https://" + rest
	}
	return u
}

func base(p recipient.Page, name string, l i18n.Lang) view {
	first := strings.TrimSpace(p.Recipient.ContactDetails.FirstName)
	hello := l.T("Hi there,")
	if first != "" {
		hello = l.T("Hi %s,", first)
	} else {
		first = "there"
	}
	var tl gifting.TemplateLook
	if p.Campaign.Look != nil {
		tl = *p.Campaign.Look
	}
	look := branding.Resolve(p.Org, tl.Logo, tl.Color)
	sender := cmp.Or(look.Name, p.Sender)
	v := view{View: name, Lang: l, Title: l.T("A gift from %s", sender), Sender: sender, CampaignName: p.Campaign.Name,
		FirstName: first, Hello: hello, Message: p.Campaign.Description, Logo: look.Logo, OrgFooter: look.Footer}
	if look.Color != branding.DefaultColor {
		v.BrandCSS = template.CSS(":root{--brand:" + look.Color + "}")
	}
	if p.Recipient.RecipientID != "" {
		v.Note = p.Recipient.Note(p.Campaign.Message, look.SenderName)
		v.NoteBy = p.Recipient.SenderName(look.SenderName)
	}
	return v
}

func (h *Handler) landingView(p recipient.Page, l i18n.Lang) view {
	v := base(p, "landing", l)
	r := p.Recipient
	if r.Status == gifting.RecipientDeclined {
		v.Declined, v.Message = true, ""
		return v
	}
	if p.Campaign.Meeting != nil {
		m := &meetingView{URL: "/gift/" + r.LandingPageID + "/meeting", With: cmp.Or(v.NoteBy, v.Sender), Due: p.MeetingDue()}
		if v.MeetingLast = m; m.Due {
			v.MeetingFirst, v.MeetingLast = m, nil
		}
	}
	if !r.Claimed() {
		v.DeclineAction = "/gift/" + r.LandingPageID + "/decline"
		for _, g := range p.Gifts {
			v.Gifts = append(v.Gifts, giftOf(g, false))
		}
		if v.MeetingFirst == nil {
			v.ClaimURL = "/claim/" + r.ClaimPageID
		}
		return v
	}
	sg := r.SelectedGift
	v.Claimed = true
	v.Selected = giftView{Name: sg.Name, Description: sg.Description, ImageURL: secureImage(sg.ImageURL)}
	v.Selected.Option, _ = r.ShipmentInfo["variantName"].(string)
	v.Steps = timeline(r, l)
	v.Ended = string(orderEnded(r.ShipmentInfo))
	if a := r.Address; a != nil {
		v.AddressText = strings.Join(addressLines(*a), "\n")
	}
	if c := p.Code; c != nil {
		v.Code = &codeView{Code: c.Code, PIN: c.PIN, URL: c.URL}
	}
	v.Delivered = r.Status == gifting.RecipientDelivered
	v.Acknowledged = r.Status == gifting.RecipientAcknowledged
	v.FeedbackOpen = r.Status.Rank() >= gifting.RecipientDelivered.Rank()
	v.FeedbackGiven = r.Feedback.Has()
	if rt := r.Feedback.Rating; rt != nil {
		v.Rating = rt.Value
	}
	v.AcknowledgeAction = "/gift/" + r.LandingPageID + "/acknowledge"
	v.FeedbackAction = "/gift/" + r.LandingPageID + "/feedback"
	return v
}

func (h *Handler) claimView(p recipient.Page, in recipient.ClaimInput, problem *gifting.Error, l i18n.Lang) view {
	v := base(p, "claim", l)
	v.Title = l.T("Claim your gift from %s", p.Sender)
	v.ClaimAction = "/claim/" + p.Recipient.ClaimPageID
	if problem != nil {
		v.Errors = map[string]string{}
		for field, msg := range problem.Details {
			v.Errors[field] = say(l, msg)
		}
		v.Alert = l.T("Please check the fields marked below.")
		if problem.Code == gifting.CodeConflict {
			v.Alert = sentence(say(l, problem.Message))
		}
	}
	stock, shown := p.InStock(), false
	for _, g := range stock {
		chosen := g.GiftID == in.GiftID || len(stock) == 1
		gv := giftOf(g, chosen)
		for _, o := range g.Variants {
			inv := g.VariantStock[o.VariantID]
			gv.Variants = append(gv.Variants, variantView{ID: o.VariantID, Name: o.Name,
				Checked: chosen && o.VariantID == in.VariantID && inv.Available > 0, SoldOut: inv.Available <= 0})
		}
		if chosen && len(gv.Variants) > 0 && !shown {
			gv.Error, shown = v.Errors["variantId"], true // one gift's options show it: ids stay unique
		}
		v.Gifts = append(v.Gifts, gv)
		v.SomeDigital = v.SomeDigital || g.Digital()
	}
	v.NoAddress = v.SomeDigital && !slices.ContainsFunc(stock, func(g gifting.Gift) bool { return !g.Digital() })
	if msg := v.Errors["variantId"]; msg != "" && !shown {
		v.Alert = sentence(msg) // an option sent for a gift that has none: no options to show it beside
	}
	e := v.Errors
	v.Fields = []field{
		{Name: "line1", Label: l.T("Street and number"), Type: "text", Value: in.Line1, Autocomplete: "address-line1", Required: true, Max: 200, Error: e["line1"]},
		{Name: "line2", Label: l.T("Apartment, suite, floor"), Hint: l.T("optional"), Type: "text", Value: in.Line2, Autocomplete: "address-line2", Max: 200, Error: e["line2"]},
		{Row: []field{
			{Name: "zip", Label: l.T("Postal code"), Type: "text", Value: in.Zip, Autocomplete: "postal-code", Required: true, Max: 20, Error: e["zip"]},
			{Name: "city", Label: l.T("City"), Type: "text", Value: in.City, Autocomplete: "address-level2", Required: true, Max: 200, Error: e["city"]},
		}},
		{Row: []field{
			{Name: "state", Label: l.T("State or region"), Hint: l.T("optional"), Type: "text", Value: in.State, Autocomplete: "address-level1", Max: 200, Error: e["state"]},
			{Name: "country", Label: l.T("Country"), Hint: l.T("two-letter code, e.g. US"), Type: "text", Value: in.Country, Autocomplete: "country", Required: true, Max: 2, Error: e["country"]},
		}},
		{Name: "phoneNumber", Label: l.T("Phone number"), Hint: l.T("optional, for the carrier"), Type: "tel", Value: in.PhoneNumber, Autocomplete: "tel", Max: 30, Error: e["phoneNumber"]},
	}
	if v.SomeDigital {
		optionalFields(v.Fields) // a digital choice needs none of them
	}
	return v
}

// optionalFields marks every field of fs (and of their rows) optional.
func optionalFields(fs []field) {
	for i := range fs {
		fs[i].Required = false
		optionalFields(fs[i].Row)
	}
}

// problems are the texts of the error pages, by status.
var problems = map[int][2]string{
	http.StatusBadRequest:            {"Something is missing", "The form could not be read. Please go back and try again."},
	http.StatusNotFound:              {"This page does not exist", "Please check that the link is exactly as in your invitation."},
	http.StatusConflict:              {"This cannot be done now", "Please go back to the page of your gift."},
	http.StatusGone:                  {"This campaign has ended", "Its gifts can no longer be claimed. Thank you for your interest."},
	http.StatusRequestEntityTooLarge: {"That was too much text", "Please shorten what you entered and try again."},
	http.StatusUnsupportedMediaType:  {"Please use the form", "This page only accepts its own form."},
	http.StatusInternalServerError:   {"Something went wrong on our side", "Please try again in a few minutes."},
	http.StatusServiceUnavailable:    {"We are busy right now", "Nothing was lost. Please try again in a minute."},
}

// unsubscribeView is the unsubscribe page of p: the question and its
// button, or, once done, the confirmation.
func unsubscribeView(p recipient.Page, done bool, l i18n.Lang) view {
	v := base(p, "unsubscribe", l)
	v.Title, v.Unsubscribed = l.T("Unsubscribe"), done
	if !done {
		v.UnsubscribeAction = "/unsubscribe/" + p.Recipient.LandingPageID
	}
	return v
}

// problem writes an error page. p, when set, is the recipient's page the
// problem is about: the error page then names the sender and, once the gift
// is claimed, leads to the landing page.
func (h *Handler) problem(w http.ResponseWriter, r *http.Request, status int, p *recipient.Page, text ...string) {
	var l i18n.Lang
	if p != nil {
		l = h.lang(r, *p)
	} else {
		l = h.lang(r, recipient.Page{})
	}
	t := problems[status]
	v := view{View: "problem", Lang: l, Title: l.Text(t[0]), Heading: l.Text(t[0]), Text: l.Text(t[1])}
	if p != nil && p.Recipient.RecipientID != "" {
		v.Sender, v.CampaignName = p.Sender, p.Campaign.Name
		if p.Recipient.Claimed() {
			v.Heading, v.LandingURL = l.T("Your address is already confirmed"), "/gift/"+p.Recipient.LandingPageID
			if p.Recipient.Address == nil {
				v.Heading = l.T("Your gift is already claimed") // a digital gift: no address was asked
			}
		}
		if p.Recipient.Status == gifting.RecipientExpired {
			v.Title, v.Heading = l.T("This gift has expired"), l.T("This gift has expired")
		}
	}
	if status == http.StatusConflict && v.LandingURL == "" && p != nil && p.MeetingDue() {
		v.LandingURL = "/gift/" + p.Recipient.LandingPageID // a claim before the meeting: the page that links it
	}
	if status == http.StatusConflict && v.LandingURL == "" && strings.HasPrefix(r.Pattern, "POST /gift/") {
		v.LandingURL = "/gift/" + r.PathValue("pageId") // "It arrived" or feedback: back to the gift
	}
	if len(text) > 0 && text[0] != "" {
		v.Text = sentence(say(l, text[0]))
	}
	h.render(w, r, status, v)
}

// say is a use case's message to the recipient (a field's problem, a
// conflict, why a page is gone) in l: the catalog's text for it, keyed by
// the English as the use case writes it, or for one of the claim's
// messages naming a gift (recipient.GiftMessages) with the gift's name as
// the organization wrote it; a message the catalog lacks stays as it is.
// The API answers the same messages in English.
func say(l i18n.Lang, msg string) string {
	if i18n.Translated(msg) {
		return l.Text(msg)
	}
	for _, format := range recipient.GiftMessages {
		if name, ok := strings.CutPrefix(msg, strings.TrimSuffix(format, "%s")); ok && name != "" {
			return l.T(format, name)
		}
	}
	return msg
}

// sentence is a use case's error message as a sentence a recipient reads:
// capitalized, with a full stop.
func sentence(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return ""
	}
	first, size := utf8.DecodeRuneInString(msg)
	msg = string(unicode.ToUpper(first)) + msg[size:]
	if !strings.ContainsAny(msg[len(msg)-1:], ".!?") {
		msg += "."
	}
	return msg
}

// render writes v as a page with status.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, v view) {
	v.CSS = template.CSS(css)
	if v.BrandCSS != "" {
		// The brand's colour is a second style element: the policy
		// allows it by its hash, as it does the style sheet.
		w.Header().Set("Content-Security-Policy", cspWith(string(v.BrandCSS)))
	}
	var buf bytes.Buffer
	if err := templateFor(v.Lang).ExecuteTemplate(&buf, "page", v); err != nil {
		h.log.ErrorContext(r.Context(), "render page", "error", err.Error())
		http.Error(w, "Something went wrong on our side.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fieldErrors returns the problems of a validation error by form field,
// renaming the use case's field names to the form's, in l (say).
func fieldErrors(l i18n.Lang, err error, rename map[string]string) map[string]string {
	out := map[string]string{}
	if de, ok := err.(*gifting.Error); ok {
		for k, msg := range de.Details {
			if n, ok := rename[k]; ok {
				k = n
			}
			out[k] = say(l, msg)
		}
	}
	return out
}
