package gifting

// Ref names a resource a campaign may refer to.
type Ref struct {
	Kind string // "template", "gift" or "contact list", as error messages name it
	ID   string
}

// Kinds of Ref.
const (
	RefTemplate    = "template"
	RefGift        = "gift"
	RefContactList = "contact list"
)
