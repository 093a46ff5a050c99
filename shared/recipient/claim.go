package recipient

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/giftcampaign/service/shared/gifting"
)

// ShippingAddress is where a recipient's gift goes, as the recipient
// confirmed it on the claim page. Country is an ISO 3166-1 alpha-2 code.
type ShippingAddress struct {
	Line1       string
	Line2       string
	City        string
	State       string
	Zip         string
	Country     string
	PhoneNumber string
}

// ClaimInput is what a recipient submits on the claim page: the chosen
// gift (and its variant, when the gift has variants) and the shipping
// address.
type ClaimInput struct {
	GiftID    string
	VariantID string
	ShippingAddress
}

// Bounds of the claim form's fields, in characters.
const (
	maxAddressLine = 200
	maxZip         = 20
)

var (
	zipPattern   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 -]*$`)
	phonePattern = regexp.MustCompile(`^\+?[0-9 ().-]+$`)
)

// Normalize trims every field and upper-cases the country.
func (in *ClaimInput) Normalize() {
	for _, f := range []*string{&in.GiftID, &in.VariantID, &in.Line1, &in.Line2, &in.City, &in.State, &in.Zip, &in.Country, &in.PhoneNumber} {
		*f = strings.TrimSpace(*f)
	}
	in.Country = strings.ToUpper(in.Country)
}

// Validate normalizes the input and checks it against the gifts the
// recipient may choose from (choices: the campaign's gifts in stock). A
// single choice needs no giftId: it is the one. A digital gift takes no
// address: the fields are left out. The error is
// VALIDATION_FAILED with a problem per field (the form's field names).
func (in *ClaimInput) Validate(choices []gifting.Gift) error {
	in.Normalize()
	var p gifting.Problems
	switch {
	case in.GiftID == "" && len(choices) == 1:
		in.GiftID = choices[0].GiftID
	case in.GiftID == "":
		p.Add("giftId", "choose a gift")
	case !hasGift(choices, in.GiftID):
		p.Add("giftId", "choose one of the gifts shown")
	default:
		for _, g := range choices {
			if g.GiftID == in.GiftID {
				checkVariant(&p, g, in.VariantID)
			}
		}
	}
	if digitalChoice(choices, in.GiftID) {
		// A code is handed over on the page: no address is asked, and
		// none sent along is kept.
		in.ShippingAddress = ShippingAddress{}
		return p.Err()
	}
	line := func(field, v string, required bool) {
		switch {
		case !utf8.ValidString(v):
			// A form field's %-escapes can spell any bytes; stored, bytes
			// that are no UTF-8 would come back as U+FFFD on the label.
			p.Add(field, "must be text (UTF-8)")
		case v == "" && required:
			p.Add(field, "is required")
		case tooLong(v, maxAddressLine):
			p.Add(field, "must be at most "+strconv.Itoa(maxAddressLine)+" characters")
		case hasControl(v):
			p.Add(field, "must be one line of text")
		}
	}
	line("line1", in.Line1, true)
	line("line2", in.Line2, false)
	line("city", in.City, true)
	line("state", in.State, false)
	switch {
	case in.Zip == "":
		p.Add("zip", "is required")
	case tooLong(in.Zip, maxZip) || !zipPattern.MatchString(in.Zip):
		p.Add("zip", "must be up to "+strconv.Itoa(maxZip)+" letters, digits, spaces or hyphens")
	}
	switch {
	case in.Country == "":
		p.Add("country", "is required")
	case !ValidCountry(in.Country):
		p.Add("country", "must be a two-letter ISO 3166-1 country code such as US or DE")
	}
	if ph := in.PhoneNumber; ph != "" {
		digits := strings.Count(strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return '0'
			}
			return -1
		}, ph), "0")
		if tooLong(ph, 30) || !phonePattern.MatchString(ph) || digits < 6 {
			p.Add("phoneNumber", "must be a phone number: digits, spaces, ( ) . - and an optional leading +")
		}
	}
	return p.Err()
}

// checkVariant checks the variant chosen of gift g: one of its variants
// when it has variants (a variant out of stock is the claim's CONFLICT,
// not a problem of the form), none when it has none.
func checkVariant(p *gifting.Problems, g gifting.Gift, variantID string) {
	_, _, known := g.Variant(variantID)
	switch {
	case len(g.Variants) == 0 && variantID != "":
		p.Add("variantId", "the gift you chose has no options to choose from")
	case len(g.Variants) > 0 && variantID == "":
		p.Add("variantId", fmt.Sprintf(MsgChooseOption, g.Name))
	case len(g.Variants) > 0 && !known:
		p.Add("variantId", fmt.Sprintf(MsgChooseShownOption, g.Name))
	}
}

// The variant problems of a claim that name the gift, as the organization
// wrote its name: the pages show them in the recipient's language by these
// formats (the API answers them in English).
const (
	MsgChooseOption      = "choose an option of %s"
	MsgChooseShownOption = "choose one of the options shown for %s"
)

// GiftMessages are the formats of the claim's messages that name a gift.
var GiftMessages = []string{MsgChooseOption, MsgChooseShownOption}

// digitalChoice reports whether the gift id names among gifts is digital.
func digitalChoice(gifts []gifting.Gift, id string) bool {
	for _, g := range gifts {
		if g.GiftID == id {
			return g.Digital()
		}
	}
	return false
}

func hasGift(gifts []gifting.Gift, id string) bool {
	for _, g := range gifts {
		if g.GiftID == id {
			return true
		}
	}
	return false
}

// hasControl reports whether s holds a control character (a line break, a
// tab, NUL) or a bidirectional formatting character (an override such as
// U+202E would print a shipping label's text reversed).
func hasControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
	}) >= 0
}

// ErrGiftExpired is the GONE of a claim page whose recipient expired
// (Recipient.Expire).
var ErrGiftExpired = gifting.Errorf(gifting.CodeGone, "this gift has expired: it was not claimed in time, so it can no longer be claimed")

// ErrAlreadyClaimed is the CONFLICT of a second claim.
var ErrAlreadyClaimed = gifting.Errorf(gifting.CodeConflict, "this gift has already been claimed: the address was confirmed")

// Claimed reports whether the recipient has confirmed an address (and so
// chosen a gift).
func (r *Recipient) Claimed() bool { return r.ClaimedAt != nil }

// Claim records the recipient's choice of gift g and its shipping address
// at now, and moves it to address_confirmed. A recipient who already
// confirmed an address is a CONFLICT.
func (r *Recipient) Claim(g gifting.Gift, addr ShippingAddress, now time.Time) error {
	if r.Status == gifting.RecipientExpired {
		return ErrGiftExpired
	}
	if r.Status == gifting.RecipientDeclined {
		return ErrDeclined
	}
	if r.Claimed() || r.Status.Rank() >= gifting.RecipientAddressConfirmed.Rank() {
		return ErrAlreadyClaimed
	}
	if err := r.Advance(gifting.RecipientAddressConfirmed, now, nil); err != nil {
		return err
	}
	r.GiftDetails, r.SelectedGift = selectGift(g, now)
	a, at := addr, now
	r.Address, r.ClaimedAt = &a, &at
	return nil
}

// ClaimRefund is what goes back to the wallet when a recipient chooses
// gift g: the credits held for the recipient (what adding it cost) minus
// the gift's price in credits as a campaign prices it
// (gifting.CreditsForPrice), or zero when the gift costs as much or more.
// A price CreditsForPrice refuses (one stored before the bounds existed:
// negative, not a number, too big) gives nothing back: the recipient keeps
// what was held, never more than that comes back.
func ClaimRefund(held int64, g gifting.Gift) int64 {
	price, err := gifting.CreditsForPrice(g.Price)
	if err != nil || price >= held {
		return 0
	}
	return held - price
}

// ValidCountry reports whether c is an officially assigned ISO 3166-1
// alpha-2 code (upper case).
func ValidCountry(c string) bool {
	if len(c) != 2 || strings.ToUpper(c) != c {
		return false
	}
	i := strings.Index(countryCodes, c)
	return i >= 0 && i%3 == 0
}

// countryCodes are the 249 officially assigned ISO 3166-1 alpha-2 codes,
// each followed by a space.
const countryCodes = "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ " +
	"BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ " +
	"CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ " +
	"DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR " +
	"GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU " +
	"ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ " +
	"LA LB LC LI LK LR LS LT LU LV LY " +
	"MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ " +
	"NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA " +
	"RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ " +
	"TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU " +
	"WF WS YE YT ZA ZM ZW "
