package dynamo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/audience"
)

// The storage of an audience's members: the reads audience.MemberRead
// chooses between, and the member's item.
//
// Costs: the createdAt order's keys are one keys-only Query of the
// audience's Slim partition, whose sort key is the contact's createdAt
// (audienceMemberLSK), up to the page's end (about 1 read unit per 40
// members skipped), then one BatchGet of the page's items and the
// audience. Members written before that key (an audience built before it
// and not rebuilt since) have their table key as their Slim sort key
// (MemberKey.Legacy). The first page in contactId order is one Query of
// the page's items. Every entry (MemberEntries) is the audience's whole
// Slim partition (keys, search text and the contact's timestamps: about 1
// read unit per 30 members).

// memberItem is an audience member (AMEMBER#<audience>#<contact> under the
// organization; in the audience's Slim partition by the contact's
// createdAt, with its search text and the contact's updatedAt and
// createdAt for the in-memory sorts).
type memberItem struct {
	AudienceID  string        `json:"audienceId"`
	ContactID   string        `json:"contactId"`
	MailID      string        `json:"mailId"`
	FirstName   string        `json:"firstName"`
	LastName    string        `json:"lastName"`
	FullName    string        `json:"fullName"`
	JobTitle    string        `json:"jobTitle"`
	CompanyName string        `json:"companyName"`
	City        string        `json:"city"`
	State       string        `json:"state"`
	Country     string        `json:"country"`
	Seniority   string        `json:"seniority"`
	Departments []string      `json:"departments"`
	MatchedOn   matchedOnItem `json:"matchedOn"`
	CreatedAt   time.Time     `json:"createdAt"`
	UpdatedAt   time.Time     `json:"updatedAt"`
	MatchedAt   time.Time     `json:"matchedAt"`
}

type matchedOnItem struct {
	JobTitle   string `json:"jobTitle,omitempty"`
	Department string `json:"department,omitempty"`
	Seniority  string `json:"seniority,omitempty"`
	Location   string `json:"location,omitempty"`
}

func (it memberItem) member() audience.Member {
	m := audience.Member{
		AudienceID: it.AudienceID, ContactID: it.ContactID, MailID: it.MailID, FirstName: it.FirstName,
		LastName: it.LastName, FullName: it.FullName, JobTitle: it.JobTitle, CompanyName: it.CompanyName,
		City: it.City, State: it.State, Country: it.Country, Seniority: it.Seniority, Departments: it.Departments,
		MatchedOn: audience.MatchedOn(it.MatchedOn), CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, MatchedAt: it.MatchedAt,
	}
	m.Normalize()
	return m
}

// memberPut is the stored form of member m of an audience of org, with
// its Slim entry.
func memberPut(orgID string, m audience.Member) (item, error) {
	it, err := marshal(memberItem{
		AudienceID: m.AudienceID, ContactID: m.ContactID, MailID: m.MailID, FirstName: m.FirstName,
		LastName: m.LastName, FullName: m.FullName, JobTitle: m.JobTitle, CompanyName: m.CompanyName,
		City: m.City, State: m.State, Country: m.Country, Seniority: m.Seniority, Departments: m.Departments,
		MatchedOn: matchedOnItem(m.MatchedOn), CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, MatchedAt: m.MatchedAt,
	})
	if err != nil {
		return nil, err
	}
	compact(it)
	sk := audienceMemberSK(m.AudienceID, m.ContactID)
	it["PK"], it["SK"] = str(orgPK(orgID)), str(sk)
	it["LPK"], it["LSK"] = str(audienceLPK(orgID, m.AudienceID)), str(audienceMemberLSK(m.CreatedAt, m.ContactID))
	it["srch"] = str(m.SearchText())
	it["upd"] = str(m.UpdatedAt.UTC().Format(timeLayout))
	it["srt"] = str(m.CreatedAt.UTC().Format(timeLayout))
	it["OPK"], it["OSK"] = it["LPK"], str(audienceMemberOSK(m.UpdatedAt, m.ContactID))
	return it, nil
}

func decodeMember(it item) (audience.Member, error) {
	var m memberItem
	if err := unmarshal(it, &m); err != nil {
		return audience.Member{}, err
	}
	return m.member(), nil
}

// MemberKeys reads the keys of the first n members of audience id in the
// order sortBy (or reversed), keys only: the createdAt order from its Slim
// partition, the updatedAt order from its Order partition, the contactId
// order from its member entries (memberEntries). About 1 read unit per 40
// members.
func (s *Store) MemberKeys(ctx context.Context, orgID, id, sortBy string, asc bool, n int) ([]audience.MemberKey, error) {
	var (
		keys []slimKey
		err  error
	)
	switch sortBy {
	case "updatedAt":
		in := s.slimQuery(audienceLPK(orgID, id), asc)
		in.IndexName, in.KeyConditionExpression = aws.String(indexOrder), aws.String("OPK = :lpk")
		in.ProjectionExpression = aws.String("SK")
		keys, err = s.keysUpTo(ctx, in, n)
	case "contactId":
		keys, err = s.memberIDKeys(ctx, orgID, id, asc, n)
	default:
		keys, err = s.slimKeysUpTo(ctx, audienceLPK(orgID, id), asc, n)
	}
	if err != nil {
		return nil, err
	}
	return memberKeysOf(id, keys), nil
}

// memberKeysOf are the audience's member keys of Slim keys.
func memberKeysOf(id string, keys []slimKey) []audience.MemberKey {
	prefix := audienceMemberPrefix(id)
	out := make([]audience.MemberKey, len(keys))
	for i, k := range keys {
		out[i] = audience.MemberKey{ContactID: strings.TrimPrefix(k.SK, prefix), Legacy: strings.HasPrefix(k.LSK, prefix),
			Position: slimPosition(k)}
	}
	return out
}

// MemberKeysAfter implements audience.MemberStore: the Slim partition of
// the audience from right after position, keys only.
func (s *Store) MemberKeysAfter(ctx context.Context, orgID, id, position string, asc bool, n int) ([]audience.MemberKey, error) {
	in := s.slimQuery(audienceLPK(orgID, id), asc)
	in.ExclusiveStartKey = slimStart(orgPK(orgID), audienceLPK(orgID, id), position)
	in.ProjectionExpression = aws.String("SK, LSK")
	keys, err := s.keysUpTo(ctx, in, n)
	if err != nil {
		return nil, err
	}
	return memberKeysOf(id, keys), nil
}

// MemberEntries reads every Slim entry of audience id whose search text
// contains all terms: keys, the contact's times and the text's words.
func (s *Store) MemberEntries(ctx context.Context, orgID, id string, terms []string) ([]audience.MemberEntry, error) {
	in := s.slimQuery(audienceLPK(orgID, id), true)
	in.ProjectionExpression = aws.String("SK, upd, srt, srch")
	filterTerms(in, terms)
	prefix := audienceMemberPrefix(id)
	var out []audience.MemberEntry
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		res, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("scan audience members: %w", err)
		}
		for _, it := range res.Items {
			// Members written before srt held the contact's createdAt
			// have none: the zero time.
			created, _ := time.Parse(timeLayout, attrS(it, "srt"))
			updated, _ := time.Parse(timeLayout, attrS(it, "upd"))
			out = append(out, audience.MemberEntry{ContactID: strings.TrimPrefix(attrS(it, "SK"), prefix),
				CreatedAt: created, UpdatedAt: updated, Words: audience.Words(attrS(it, "srch"))})
		}
	}
	return out, nil
}

// FirstMembers reads the first n members of audience id in contactId order
// (or reversed): one Query of the table's member items.
func (s *Store) FirstMembers(ctx context.Context, orgID, id string, asc bool, n int) ([]audience.Member, error) {
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{":pk": str(orgPK(orgID)), ":prefix": str(audienceMemberPrefix(id))},
		ScanIndexForward:          aws.Bool(asc),
	}
	out := make([]audience.Member, 0, n)
	for len(out) < n {
		in.Limit = aws.Int32(int32(n - len(out)))
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("query audience members: %w", err)
		}
		for _, it := range res.Items {
			m, err := decodeMember(it)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	return out, nil
}

// Members reads the members of audience id with contact ids ids (in one
// BatchGetItem for a page of up to 100, eventually consistent: a page's),
// in that order; a member deleted meanwhile is left out.
func (s *Store) Members(ctx context.Context, orgID, id string, ids []string) ([]audience.Member, error) {
	_, _, out, err := s.audienceWithMembers(ctx, orgID, id, ids, false)
	return out, err
}

// AudienceWithMembers is Members that also reads audience id in the same
// BatchGetItem (a page of 100 members and the audience take two:
// BatchGetItem reads 100 keys): audience.ErrNotFound when it is missing.
func (s *Store) AudienceWithMembers(ctx context.Context, orgID, id string, ids []string) (audience.Audience, []audience.Member, error) {
	a, found, out, err := s.audienceWithMembers(ctx, orgID, id, ids, true)
	if err == nil && !found {
		err = audience.ErrNotFound
	}
	return a, out, err
}

// audienceWithMembers reads the members of audience id with contact ids
// ids and, withAudience, the audience, in one BatchGetItem.
func (s *Store) audienceWithMembers(ctx context.Context, orgID, id string, ids []string, withAudience bool) (audience.Audience, bool, []audience.Member, error) {
	keys := make([]item, 0, len(ids)+1)
	if withAudience {
		keys = append(keys, key(orgPK(orgID), audienceSK(id)))
	}
	for _, c := range ids {
		keys = append(keys, key(orgPK(orgID), audienceMemberSK(id, c)))
	}
	// Eventually consistent: only pages read members by key, their keys
	// came from an index (itself eventually consistent) and no rule reads
	// a page; half the read units of a consistent read.
	got, err := s.batchGetAs(ctx, keys, false)
	if err != nil {
		return audience.Audience{}, false, nil, err
	}
	var (
		a     audience.Audience
		found bool
	)
	bySK := make(map[string]audience.Member, len(got))
	for _, it := range got {
		if withAudience && attrS(it, "SK") == audienceSK(id) {
			if a, err = decodeAudience(it); err != nil {
				return a, false, nil, err
			}
			found = true
			continue
		}
		m, err := decodeMember(it)
		if err != nil {
			return a, false, nil, err
		}
		bySK[attrS(it, "SK")] = m
	}
	out := make([]audience.Member, 0, len(ids))
	for _, c := range ids {
		if m, ok := bySK[audienceMemberSK(id, c)]; ok {
			out = append(out, m)
		}
	}
	return a, found, out, nil
}
