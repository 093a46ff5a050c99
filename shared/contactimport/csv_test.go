package contactimport

import (
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
)

// TestReadHeader: the bulk add's field names in any case and order, the
// address's bare or as address.<field>; an unknown column, a repeated one
// or no email column refuses the file with a reason naming it.
func TestReadHeader(t *testing.T) {
	got, err := ReadHeader([]string{" EMAIL ", "firstname", "Address.ZipCode", "tags"})
	if err != nil || strings.Join(got, ",") != "email,firstName,zipCode,tags" {
		t.Fatalf("ReadHeader = %v, %v", got, err)
	}
	if got, err := ReadHeader([]string{"mailId"}); err != nil || got[0] != "mailId" {
		t.Fatalf("mailId alone: %v, %v", got, err)
	}
	for cells, want := range map[string]string{
		"email,shoe size":    `column 2 ("shoe size")`,
		"email,mailid,Email": "names email twice",
		"firstName,city":     "no email column",
	} {
		if _, err := ReadHeader(strings.Split(cells, ",")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadHeader(%s) = %v, want an error with %q", cells, err, want)
		}
	}
}

// TestCandidate: a row becomes the input a JSON item with the same fields
// would (tags split on ';', empty cells absent, the address's fields), and
// fails as it would (mailId and email that differ), or for a cell that is
// not UTF-8.
func TestCandidate(t *testing.T) {
	header := []string{"email", "mailId", "firstName", "tags", "street", "country"}
	c, given := Candidate(header, []string{"Ada@Example.com", "", "Ada", " vip ;; q3 ", "1 Main St", "US"})
	if c.Err != nil || given != "Ada@Example.com" || c.Input.MailID != "Ada@Example.com" || c.Input.FirstName != "Ada" ||
		strings.Join(c.Input.Tags, "|") != "vip|q3" || c.Input.Address.Line1 != "1 Main St" || c.Input.Address.Country != "US" {
		t.Fatalf("Candidate = %+v, %q", c, given)
	}
	if c, _ := Candidate(header, []string{"a@example.com", "", "", "", "", ""}); c.Input.Tags != nil {
		t.Errorf("an empty tags cell gave tags %q, want none", c.Input.Tags)
	}
	c, given = Candidate(header, []string{"x@example.com", "y@example.com", "", "", "", ""})
	if gifting.ErrorCode(c.Err) != gifting.CodeValidation || given != "y@example.com" {
		t.Errorf("mailId and email that differ: %v, %q", c.Err, given)
	}
	if c, _ := Candidate(header, []string{"z@example.com", "", "\xff\xfe", "", "", ""}); c.Err == nil || !strings.Contains(c.Err.Error(), "not UTF-8") {
		t.Errorf("a cell that is not UTF-8: %v", c.Err)
	}
}
