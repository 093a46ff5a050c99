package contactimport

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/giftcampaign/service/shared/contact"
)

// The columns a file's header may name: the bulk add's fields (email and
// mailId either), the address's fields bare or as address.<field>, and
// tags, separated by ';' within their cell. Names match case-insensitively.
var columns = map[string]string{
	"mailid": "mailId", "email": "email", "firstname": "firstName", "lastname": "lastName",
	"fullname": "fullName", "companyname": "companyName", "jobtitle": "jobTitle",
	"phonenumber": "phoneNumber", "linkedinurl": "linkedinUrl", "profileimage": "profileImage",
	"locale": "locale", "tags": "tags", "street": "street", "city": "city", "state": "state", "zipcode": "zipCode", "country": "country",
}

// TagSeparator separates the tags of a row's tags cell.
const TagSeparator = ";"

// ReadHeader decides a file's header row: each cell must name a column
// (see columns), none twice, and email or mailId must be among them. It
// returns the canonical names, in the file's order.
func ReadHeader(cells []string) ([]string, error) {
	out := make([]string, len(cells))
	seen := map[string]bool{}
	for i, c := range cells {
		name := strings.ToLower(strings.TrimSpace(c))
		name = strings.TrimPrefix(name, "address.")
		canon, ok := columns[name]
		if !ok {
			return nil, fmt.Errorf("the header's column %d (%q) names no contact field; use the bulk add's field names: email or mailId, firstName, lastName, fullName, companyName, jobTitle, phoneNumber, linkedinUrl, profileImage, locale, tags, street, city, state, zipCode, country", i+1, truncate(c))
		}
		if seen[canon] {
			return nil, fmt.Errorf("the header names %s twice", canon)
		}
		seen[canon], out[i] = true, canon
	}
	if !seen["email"] && !seen["mailId"] {
		return nil, fmt.Errorf("the header names no email column: the first row must name the columns, one of them email (or mailId)")
	}
	return out, nil
}

// truncate keeps a quoted cell short in a message.
func truncate(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// Candidate converts a data row, read under header, into the bulk add's
// item: the same conversion a JSON bulk-add contact gets (mailId and email
// must agree, contact.MailIDOf), so a row and the JSON object with the
// same fields meet the same rules. A row whose cells are not UTF-8 fails.
func Candidate(header, cells []string) (contact.Candidate, string) {
	var mailID, email string
	var in contact.Input
	var addr contact.Address
	for i, name := range header {
		v := cells[i]
		if !utf8.ValidString(v) {
			return contact.Candidate{Err: fmt.Errorf("the %s cell is not UTF-8 text", name)}, ""
		}
		switch name {
		case "mailId":
			mailID = v
		case "email":
			email = v
		case "firstName":
			in.FirstName = v
		case "lastName":
			in.LastName = v
		case "fullName":
			in.FullName = v
		case "companyName":
			in.CompanyName = v
		case "jobTitle":
			in.JobTitle = v
		case "phoneNumber":
			in.PhoneNumber = v
		case "linkedinUrl":
			in.LinkedinURL = v
		case "profileImage":
			in.ProfileImage = v
		case "locale":
			in.Locale = v
		case "tags":
			in.Tags = Tags(v)
		case "street":
			addr.Line1 = v
		case "city":
			addr.City = v
		case "state":
			addr.State = v
		case "zipCode":
			addr.Zip = v
		case "country":
			addr.Country = v
		}
	}
	given := mailID
	if given == "" {
		given = email
	}
	mail, err := contact.MailIDOf(mailID, email)
	if err != nil {
		return contact.Candidate{Err: err}, given
	}
	in.MailID, in.Address = mail, addr
	return contact.Candidate{Input: in}, given
}

// Tags splits a tags cell: trimmed, empty ones dropped; nil for none, as a
// JSON bulk add without tags has.
func Tags(cell string) []string {
	var out []string
	for _, t := range strings.Split(cell, TagSeparator) {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}
