package contact

import (
	"slices"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Plan is a decided write of one contact: the contact as it will be
// stored, what happened to it and the list it joins, if any. Storage
// commits it conditioned on Contact.Stored: a new contact only where no
// item is, any other only at the version it was decided from.
type Plan struct {
	Contact Contact
	// Status is StatusCreated, StatusMerged, StatusAdded or
	// StatusUnchanged (nothing to write).
	Status string
	// Joined is the list the contact joins with this write, "" for none.
	Joined string
}

// Created reports whether the plan creates the contact.
func (p Plan) Created() bool { return p.Status == StatusCreated }

// Holding is what storage found for an email: the live contact that has it
// (Found), or, when none does, the id and Stored a new contact for it
// takes (Contact holds only those then).
type Holding struct {
	Found   bool
	Contact Contact
	// Gone says the contact that had the email went between storage's
	// reads: read the holding again (Store.Holding).
	Gone bool
}

// Upsert decides the write of validated input in for org under the
// email's holding h: a new contact when none has the email (Created),
// else in merged into the one that has it (Merged; Merge's rules), either
// way joining listID unless it is "" or the contact is in it already.
// Errors: VALIDATION_FAILED when the merged tags would be too many,
// CONFLICT when the contact is in MaxLists lists already.
func Upsert(h Holding, orgID string, in Input, src Source, listID string, now time.Time) (Plan, error) {
	if !h.Found {
		c := New(h.Contact.ContactID, orgID, h.Contact.Stored, in, src, now)
		p := Plan{Contact: c, Status: StatusCreated}
		if listID != "" {
			p.Contact.ListIDs = append(p.Contact.ListIDs, listID)
			p.Joined = listID
		}
		return p, nil
	}
	c := h.Contact
	if err := c.TagsFit(in); err != nil {
		return Plan{Contact: c, Status: StatusMerged}, err
	}
	c.ListIDs = slices.Clone(c.ListIDs)
	c.Merge(in, src, now)
	p := Plan{Contact: c, Status: StatusMerged}
	if listID != "" && !c.InList(listID) {
		if len(c.ListIDs) >= MaxLists {
			return p, tooManyLists()
		}
		p.Contact.ListIDs = append(p.Contact.ListIDs, listID)
		p.Joined = listID
	}
	return p, nil
}

// Join decides adding the stored contact c to listID: nothing to write
// when it is in the list already (Unchanged), else the contact with the
// list (Added). Errors: CONFLICT when it is in MaxLists lists already.
func Join(c Contact, listID string, now time.Time) (Plan, error) {
	if c.InList(listID) {
		return Plan{Contact: c, Status: StatusUnchanged}, nil
	}
	if len(c.ListIDs) >= MaxLists {
		return Plan{}, tooManyLists()
	}
	c.ListIDs = append(slices.Clone(c.ListIDs), listID)
	c.UpdatedAt = now
	return Plan{Contact: c, Status: StatusAdded, Joined: listID}, nil
}

// Leave decides taking the stored contact c out of listID: c without it.
// Errors: NOT_FOUND when c is not in the list.
func Leave(c Contact, listID string, now time.Time) (Contact, error) {
	if !c.InList(listID) {
		return c, gifting.Errorf(gifting.CodeNotFound, "contact %q is not in list %q", c.ContactID, listID)
	}
	c.ListIDs = slices.DeleteFunc(slices.Clone(c.ListIDs), func(id string) bool { return id == listID })
	c.UpdatedAt = now
	return c, nil
}

// Deleted is the record a deleted contact c leaves: marked deleted at now,
// in no list. The deletion also releases its email and takes it out of
// every list and of the organization's count, in one commit
// (Store.CommitContactDelete).
func Deleted(c Contact, now time.Time) Contact {
	c.IsDeleted, c.UpdatedAt, c.ListIDs = true, now, []string{}
	return c
}

// tooManyLists is the CONFLICT of a contact that would join more than
// MaxLists lists.
func tooManyLists() error {
	return gifting.Errorf(gifting.CodeConflict, "the contact is already in %d lists, the most one contact can be in", MaxLists)
}
