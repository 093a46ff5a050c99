package dynamo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// AudienceMembers returns audience audienceID (NOT_FOUND when org has no
// such audience), a page of its members and how many match q (its
// totalMatch when there is no search, which a build counts after writing
// each slice of members: the keys are read one past the page, so the
// total is theirs where they tell it, gifting.PageTotal).
//
// Costs: the default createdAt order is one keys-only Query of the
// audience's Slim partition, whose sort key is the contact's createdAt
// (audienceMemberLSK), up to the page's end (about 1 read unit per 40
// members skipped), then one BatchGet of the page's items. Members written
// before that key (an audience built before it and not rebuilt since)
// have their table key as their Slim sort key, which sorts before
// audienceMemberLSK's: oldest first they come first, newest first they
// come after every newer entry (an audience is wholly one or the other
// but while a rebuild replaces it); an audience whose keys read any is
// sorted in memory. Page 1 in contactId order is one Query of the
// page's items. A search, the updatedAt order and the deeper pages in
// contactId order read the audience's whole Slim partition (keys, search
// text and the contact's timestamps: about 1 read unit per 30 members) and
// sort it in memory, then read the page's items by key: O(audience) in
// index entries, never in items. Contact ids are derived from the email,
// so the contactId order is not the creation order.
func (s *Store) AudienceMembers(ctx context.Context, orgID, audienceID string, q gifting.MemberQuery) (gifting.AudienceList, []gifting.AudienceMember, int, error) {
	terms := strings.Fields(strings.ToLower(q.Search))
	if len(terms) > 0 || q.SortBy == "updatedAt" || q.SortBy == "contactId" {
		a, err := s.Audience(ctx, orgID, audienceID)
		if err != nil {
			return a, nil, 0, err
		}
		var items []gifting.AudienceMember
		var total int
		if q.SortBy == "contactId" && q.Page.Offset() == 0 && len(terms) == 0 {
			items, total, err = s.firstMembersByID(ctx, orgID, a, q)
		} else {
			items, total, err = s.scanMembers(ctx, orgID, a.AudienceID, terms, q)
		}
		return a, items, total, err
	}
	keys, err := s.slimKeysUpTo(ctx, audienceLPK(orgID, audienceID), q.Order == gifting.Asc, q.Page.End()+1)
	if err != nil {
		return gifting.AudienceList{}, nil, 0, fmt.Errorf("audience members: %w", err)
	}
	if slices.ContainsFunc(keys, func(k slimKey) bool { return strings.HasPrefix(k.LSK, audienceMemberPrefix(audienceID)) }) {
		// Members written before their Slim entries sorted by createdAt
		// (an audience built before, not rebuilt since).
		a, err := s.Audience(ctx, orgID, audienceID)
		if err != nil {
			return a, nil, 0, err
		}
		items, total, err := s.scanMembers(ctx, orgID, audienceID, nil, q)
		return a, items, total, err
	}
	lo, hi := q.Page.Window(len(keys))
	a, items, err := s.audienceWithMembers(ctx, orgID, audienceID, tableSKs(keys[lo:hi]))
	return a, items, gifting.PageTotal(q.Page, int(a.TotalMatch), len(keys)), err
}

// membersBySK reads the member items of table sort keys sks (in one
// BatchGetItem for a page of up to 100) and returns them in that order;
// a member deleted meanwhile is left out.
func (s *Store) membersBySK(ctx context.Context, orgID string, sks []string) ([]gifting.AudienceMember, error) {
	_, out, err := s.audienceWithMembers(ctx, orgID, "", sks)
	return out, err
}

// audienceWithMembers is membersBySK that also reads audience audienceID
// (unless "") in the same BatchGetItem (a page of 100 members and the
// audience take two: BatchGetItem reads 100 keys), NOT_FOUND when it is
// missing.
func (s *Store) audienceWithMembers(ctx context.Context, orgID, audienceID string, sks []string) (gifting.AudienceList, []gifting.AudienceMember, error) {
	keys := make([]item, 0, len(sks)+1)
	if audienceID != "" {
		keys = append(keys, key(orgPK(orgID), audienceSK(audienceID)))
	}
	for _, sk := range sks {
		keys = append(keys, key(orgPK(orgID), sk))
	}
	got, err := s.batchGet(ctx, keys)
	if err != nil {
		return gifting.AudienceList{}, nil, err
	}
	var a *storedAudience
	bySK := make(map[string]gifting.AudienceMember, len(got))
	for _, it := range got {
		if audienceID != "" && attrS(it, "SK") == audienceSK(audienceID) {
			var stored storedAudience
			if err := unmarshal(it, &stored); err != nil {
				return gifting.AudienceList{}, nil, err
			}
			stored.Normalize()
			a = &stored
			continue
		}
		m, err := decodeMember(it)
		if err != nil {
			return gifting.AudienceList{}, nil, err
		}
		bySK[attrS(it, "SK")] = m
	}
	if a == nil && audienceID != "" {
		return gifting.AudienceList{}, nil, gifting.NotFound("audience list", audienceID)
	}
	out := make([]gifting.AudienceMember, 0, len(sks))
	for _, sk := range sks {
		if m, ok := bySK[sk]; ok {
			out = append(out, m)
		}
	}
	if a == nil {
		return gifting.AudienceList{}, out, nil
	}
	return a.AudienceList, out, nil
}

// firstMembersByID returns the first page of audience a's members in
// contactId order: one Query of the table's member items.
func (s *Store) firstMembersByID(ctx context.Context, orgID string, a gifting.AudienceList, q gifting.MemberQuery) ([]gifting.AudienceMember, int, error) {
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{
			":pk": str(orgPK(orgID)), ":prefix": str(audienceMemberPrefix(a.AudienceID)),
		},
		ScanIndexForward: aws.Bool(q.Order == gifting.Asc),
	}
	// One member past the page says whether one follows it.
	want := q.Page.Limit + 1
	out := make([]gifting.AudienceMember, 0, want)
	for len(out) < want {
		in.Limit = aws.Int32(int32(want - len(out)))
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, 0, fmt.Errorf("query audience members: %w", err)
		}
		for _, it := range res.Items {
			m, err := decodeMember(it)
			if err != nil {
				return nil, 0, err
			}
			out = append(out, m)
		}
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	read := len(out)
	return out[:min(read, q.Page.Limit)], gifting.PageTotal(q.Page, int(a.TotalMatch), read), nil
}

func decodeMember(it item) (gifting.AudienceMember, error) {
	var m gifting.AudienceMember
	if err := unmarshal(it, &m); err != nil {
		return m, err
	}
	m.Normalize()
	return m, nil
}

// scanMembers reads every Slim entry of the audience that contains all
// terms, orders them, and reads the page's items by key.
func (s *Store) scanMembers(ctx context.Context, orgID, aud string, terms []string, q gifting.MemberQuery) ([]gifting.AudienceMember, int, error) {
	if len(terms) > maxSearchTerms {
		terms = terms[:maxSearchTerms]
	}
	in := s.slimQuery(audienceLPK(orgID, aud), true)
	in.ProjectionExpression = aws.String("SK, upd, srt")
	filterTerms(in, terms)
	type entry struct{ sk, by string }
	var entries []entry
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		res, err := p.NextPage(ctx)
		if err != nil {
			return nil, 0, fmt.Errorf("scan audience members: %w", err)
		}
		for _, it := range res.Items {
			e := entry{sk: attrS(it, "SK")}
			switch q.SortBy {
			case "updatedAt":
				e.by = attrS(it, "upd")
			case "contactId":
			default:
				e.by = attrS(it, "srt")
			}
			entries = append(entries, e)
		}
	}
	// Stored timestamps have a fixed width, so they sort as strings; the
	// table's sort key (so the contactId) breaks ties. (Members written
	// before srt held the contact's createdAt have none and come first; a
	// rebuild writes it.)
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Or(cmp.Compare(a.by, b.by), cmp.Compare(a.sk, b.sk)) })
	if q.Order != gifting.Asc {
		slices.Reverse(entries)
	}
	lo, hi := q.Page.Window(len(entries))
	sks := make([]string, 0, hi-lo)
	for _, e := range entries[lo:hi] {
		sks = append(sks, e.sk)
	}
	out, err := s.membersBySK(ctx, orgID, sks)
	return out, len(entries), err
}

// fillSliceMembers is how many members one slice of filling a contact list
// adds: a few seconds of work.
const fillSliceMembers = 500

// StartAudienceContactList records that contact list listID is to be filled
// with audience id's members (by FillAudienceContactList). It returns
// NOT_FOUND for a missing audience and CONFLICT unless the audience is
// ready.
func (s *Store) StartAudienceContactList(ctx context.Context, orgID, id, listID string) error {
	p, err := marshal(struct {
		P gifting.ListProgress `json:"p"`
	}{gifting.ListProgress{Status: gifting.ListAdding}})
	if err != nil {
		return err
	}
	// The copy's due item, in the same transaction: the tick fills the
	// list if the job's message is lost.
	pk := orgPK(orgID)
	due := dueOnlyItem(gifting.JobAudienceContactList, id, pk, audienceCopySK(id, listID), s.Now().Add(DueLease))
	due["cursor"] = str(listID)
	err = s.transactRetrying(ctx, []types.TransactWriteItem{
		{Update: &types.Update{
			TableName:                 &s.table,
			Key:                       key(pk, audienceSK(id)),
			UpdateExpression:          aws.String("SET metadata.contactLists.#lid = :p, updatedAt = :now"),
			ConditionExpression:       aws.String("#st = :ready"),
			ExpressionAttributeNames:  map[string]string{"#st": "status", "#lid": listID},
			ExpressionAttributeValues: item{":p": p["p"], ":now": str(s.Now().Format(timeLayout)), ":ready": str(string(gifting.AudienceReady))},
		}},
		{Put: &types.Put{TableName: &s.table, Item: due}},
	})
	if reasonCode(cancellationReasons(err), 0) == "ConditionalCheckFailed" {
		a, err := s.Audience(ctx, orgID, id)
		if err != nil {
			return err
		}
		return a.NotReady()
	}
	if err != nil {
		return fmt.Errorf("start contact list of audience %s: %w", id, err)
	}
	return nil
}

// FillAudienceContactList runs one slice of filling contact list listID
// with audience id's members: the next members (in contactId order) join
// the list as existing contacts, so no contact is duplicated. It returns
// done when nothing is left to do. Like a build, every slice commits its
// progress conditioned on the cursor it started from, so running a slice
// twice counts it once.
func (s *Store) FillAudienceContactList(ctx context.Context, orgID, id, listID string) (done bool, err error) {
	a, err := s.Audience(ctx, orgID, id)
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return true, errors.Join(err, s.copyDone(ctx, orgID, id, listID))
	}
	if err != nil {
		return true, err
	}
	p, ok := a.Metadata.ContactLists[listID]
	if !ok || p.Status != gifting.ListAdding {
		return true, s.copyDone(ctx, orgID, id, listID)
	}
	after := ""
	if p.Cursor != "" {
		after = audienceMemberSK(id, p.Cursor)
	}
	ids, next, err := s.keyPage(ctx, orgPK(orgID), audienceMemberPrefix(id), after, fillSliceMembers)
	if err != nil {
		return false, err
	}
	var added contact.BulkResult
	if len(ids) > 0 {
		added, err = s.AddContactIDsToList(ctx, orgID, listID, ids)
		if gifting.ErrorCode(err) == gifting.CodeNotFound {
			return true, s.endContactList(ctx, orgID, id, listID, gifting.ListFailed)
		}
		if err != nil {
			return false, err
		}
	}
	last := next == ""
	set := []string{"#m.#cl.#lid.added = #m.#cl.#lid.added + :a", "#m.#cl.#lid.unchanged = #m.#cl.#lid.unchanged + :u", "#m.#cl.#lid.failed = #m.#cl.#lid.failed + :f", "updatedAt = :now"}
	values := item{
		":a": num(int64(added.Added)), ":u": num(int64(added.Unchanged)), ":f": num(int64(added.Failed)),
		":now": str(s.Now().Format(timeLayout)), ":adding": str(gifting.ListAdding),
	}
	expr := ""
	if last {
		set = append(set, "#m.#cl.#lid.#st = :ready")
		values[":ready"] = str(gifting.ListReady)
		expr = " REMOVE #m.#cl.#lid.#cur, #m.#cl.#lid.failures"
	} else {
		set = append(set, "#m.#cl.#lid.#cur = :to", "#m.#cl.#lid.failures = :zero")
		values[":to"], values[":zero"] = str(ids[len(ids)-1]), num(0)
	}
	cond := "#m.#cl.#lid.#st = :adding AND attribute_not_exists(#m.#cl.#lid.#cur)"
	if p.Cursor != "" {
		cond = "#m.#cl.#lid.#st = :adding AND #m.#cl.#lid.#cur = :from"
		values[":from"] = str(p.Cursor)
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), audienceSK(id)),
		UpdateExpression:          aws.String("SET " + strings.Join(set, ", ") + expr),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  progressNames(listID, true),
		ExpressionAttributeValues: values,
	})
	if isConditionFailed(err) {
		// Another run of this slice recorded it first.
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("record contact list progress: %w", err)
	}
	if last {
		return true, s.copyDone(ctx, orgID, id, listID)
	}
	// Progress: the tick leaves the copy to its job a lease more.
	return false, s.dueProgressed(ctx, orgPK(orgID), audienceCopySK(id, listID), listID)
}

// copyDone deletes the due item of the copy of audience id into list
// listID: the copy is over (or gone with its audience).
func (s *Store) copyDone(ctx context.Context, orgID, id, listID string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: key(orgPK(orgID), audienceCopySK(id, listID))})
	if err != nil {
		return fmt.Errorf("end audience copy: %w", err)
	}
	return nil
}

// progressNames are the expression names of list listID's progress entry:
// #m.#cl.#lid is metadata.contactLists.<listID>, #st its status and, with
// withCursor, #cur its cursor (DynamoDB rejects names an expression does
// not use).
func progressNames(listID string, withCursor bool) map[string]string {
	names := map[string]string{"#m": "metadata", "#cl": "contactLists", "#lid": listID, "#st": "status"}
	if withCursor {
		names["#cur"] = "cursor"
	}
	return names
}

// NoteContactListFailure records that a slice of filling list listID
// failed; after maxBuildFailures consecutive failures the list's progress is
// failed for good and gaveUp is true.
func (s *Store) NoteContactListFailure(ctx context.Context, orgID, id, listID string) (gaveUp bool, err error) {
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), audienceSK(id)),
		UpdateExpression:          aws.String("SET #m.#cl.#lid.failures = if_not_exists(#m.#cl.#lid.failures, :zero) + :one"),
		ConditionExpression:       aws.String("#m.#cl.#lid.#st = :adding"),
		ExpressionAttributeNames:  progressNames(listID, false),
		ExpressionAttributeValues: item{":zero": num(0), ":one": num(1), ":adding": str(gifting.ListAdding)},
		ReturnValues:              types.ReturnValueAllNew,
	})
	if isConditionFailed(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("note contact list failure: %w", err)
	}
	var a gifting.AudienceList
	if err := unmarshal(out.Attributes, &a); err != nil {
		return false, err
	}
	if a.Metadata.ContactLists[listID].Failures < maxBuildFailures {
		return false, nil
	}
	return true, s.endContactList(ctx, orgID, id, listID, gifting.ListFailed)
}

// endContactList sets the final status of list listID's progress.
func (s *Store) endContactList(ctx context.Context, orgID, id, listID, status string) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), audienceSK(id)),
		UpdateExpression:          aws.String("SET #m.#cl.#lid.#st = :end, updatedAt = :now REMOVE #m.#cl.#lid.#cur, #m.#cl.#lid.failures"),
		ConditionExpression:       aws.String("#m.#cl.#lid.#st = :adding"),
		ExpressionAttributeNames:  progressNames(listID, true),
		ExpressionAttributeValues: item{":end": str(status), ":now": str(s.Now().Format(timeLayout)), ":adding": str(gifting.ListAdding)},
	})
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("end contact list progress: %w", err)
	}
	return s.copyDone(ctx, orgID, id, listID)
}
