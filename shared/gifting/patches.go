package gifting

import "time"

// ContactListPatch is a partial update of a contact list: its name and
// description.
type ContactListPatch struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
}

// Apply validates the patched list as a new list is validated
// (ValidateContactList) and, when it is valid, applies it to l and moves
// l's updatedAt to now. It returns VALIDATION_FAILED and leaves l unchanged
// otherwise.
func (p ContactListPatch) Apply(l *ContactList, now time.Time) error {
	name, desc := l.Name, l.Description
	set(&name, p.Name)
	set(&desc, p.Description)
	if err := ValidateContactList(&name, &desc); err != nil {
		return err
	}
	l.Name, l.Description, l.UpdatedAt = name, desc, now
	return nil
}

// set copies *v into *dst when v is not nil.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// JobContactListDelete is the job kind that removes a deleted contact
// list's memberships, a slice at a time.
const JobContactListDelete = "contactlist.delete"
