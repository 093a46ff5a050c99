package dynamo

import (
	"crypto/sha256"
	"encoding/base32"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// The table's keys. Every tenant item lives in the partition of its
// organization, so no request can name another organization's item: the
// organization comes from the API key, never from input. The only global
// items are the API-key hashes, read before the organization is known.
//
// Every access pattern (pattern → key condition → index → cost) is in the
// one table of docs/data-model.md ("Access patterns"); a new kind of item
// adds its key builder here and its row there.
//
// The message item is global, like the API-key hash: SES's bounce and
// complaint events name only the message id, before the organization is
// known.
//
// The due index (Due; it replaced GSI1, whose ALL projection copied every
// waiting recipient whole) is sparse: an item (a launch record, a
// recipient with an email waiting) carries dueShard and dueAt only while
// work on it is outstanding, so a tick with nothing due
// reads one empty page per shard. See due.go.
//
// Key builders are the only place these strings are spelled.

func orgPK(org string) string { return "ORG#" + org }

// orgsPK is the partition of the organizations' registry: one small item
// per organization (SK=orgPK), written with it, which the operator's list
// queries in id order instead of scanning the table.
const orgsPK = "ORGS"

// usageSK is an organization's usage counters of a month (YYYY-MM).
func usageSK(month string) string     { return "USAGE#" + month }
func messagePK(id string) string      { return "MSG#" + id }
func apiKeyPK(hash string) string     { return "KEY#" + hash }
func apiKeyRefSK(keyID string) string { return apiKeyRefPrefix + keyID }

// apiKeyRefPrefix starts the sort key of an organization's key records.
const apiKeyRefPrefix = "APIKEY#"

func ledgerSK(entryID string) string  { return "LEDGER#" + entryID }
func counterSK(name string) string    { return "COUNT#" + name }
func giftSK(id string) string         { return "GIFT#" + id }
func templateSK(id string) string     { return "TEMPLATE#" + id }
func contactSK(id string) string      { return "CONTACT#" + id }
func emailSK(email string) string     { return "EMAIL#" + email }
func migrateSK(step string) string    { return "MIGRATE#" + step }
func topUpSK(requestID string) string { return "TOPUP#" + requestID }
func emailSetSK(id string) string     { return "EMAILS#" + id }

// slotID is the id of the contact item that is the slot of email in org:
// 26 lower-case base32 characters of a SHA-256 of the two, so it never
// equals a ULID (upper case) and passes gifting.ValidID. The item at
// CONTACT#<slotID> names in holder the contact that has the email; a new
// contact for a free email is created right there, so one conditional
// put both creates it and claims its email.
func slotID(org, email string) string {
	return digestID([]byte("contact\x00" + org + "\x00" + email))
}

// digestID is a content-derived id: 26 lower-case base32 characters (130
// bits) of a SHA-256 of b. Lower case keeps it apart from ULIDs.
func digestID(b []byte) string {
	sum := sha256.Sum256(b)
	return strings.ToLower(base32.StdEncoding.EncodeToString(sum[:]))[:26]
}

// isSlotID reports whether a contact id is a slot id (lower case) rather
// than a ULID (upper case).
func isSlotID(id string) bool { return id != "" && strings.ToLower(id) == id }

// contactLSK is a contact's Slim sort key: its first list ("-" for none),
// then its creation-ordered key (newContactOrd), so the members whose
// first list is L are one range of the contacts' Slim partition, newest
// first.
func contactLSK(firstList, ord string) string {
	if firstList == "" {
		firstList = noList
	}
	return firstList + "#" + ord
}

// noList starts the Slim sort key of a contact in no list; it sorts before
// every ULID, so these contacts come last in the descending contacts page.
const noList = "-"

func listSK(id string) string { return "LIST#" + id }
func memberSK(list, contact string) string {
	return "MEMBER#" + list + "#" + contact
}
func campaignSK(id string) string                   { return "CAMPAIGN#" + id }
func recipientSK(campaign, recipient string) string { return "RCPT#" + campaign + "#" + recipient }

// recipientOfSK is the marker that made a contact a recipient of a
// campaign at most once before recipient ids were derived from the
// contact (recipientIDFor). Recipients written then keep their random ids
// and their markers; new code reads the marker, never writes it.
func recipientOfSK(campaign, contact string) string {
	return "RCPTOF#" + campaign + "#" + contact
}

// recipientIDFor is the id of the recipient that contact becomes in
// campaign: derived from both, so the recipient's key is the uniqueness of
// a contact in a campaign (a second put of it fails its condition) and no
// marker item is needed. It has the shape of a ULID (26 characters of
// Crockford base 32), but its time part carries no meaning: the recipient's
// place in creation order is its Slim sort key (recipientLSK).
func recipientIDFor(campaign, contact string) string {
	sum := sha256.Sum256([]byte(campaign + "\x00" + contact))
	var id ulid.ULID
	copy(id[:], sum[:16])
	return id.String()
}

// recipientLSK is the Slim sort key of recipient id of campaign, created
// at created: a ULID of that time (its random part derived from the id, so
// every write of the recipient computes the same key), so the campaign's
// Slim partition lists its recipients in creation order whatever their
// ids.
func recipientLSK(campaign, id string, created time.Time) string {
	sum := sha256.Sum256([]byte(id))
	var u ulid.ULID
	_ = u.SetTime(ulid.Timestamp(created)) // fails only past the year 10889
	_ = u.SetEntropy(sum[:10])             // exactly 10 bytes: never fails
	return "RCPT#" + campaign + "#" + u.String()
}

// recipientCreationKey is a recipient's Slim sort key (recipientLSK, or
// for a legacy recipient its SK) without the prefix every recipient of its
// campaign shares, "RCPT#<campaign>#": it orders a campaign's recipients
// as their LSK does, in 33 bytes fewer. The Order and Sort keys end with
// it: a recipient item over 1 KB costs two write units a write (four in a
// transaction), so its keys repeat no more of LSK than they must.
func recipientCreationKey(campaign, lsk string) string {
	return strings.TrimPrefix(lsk, "RCPT#"+campaign+"#")
}
func idempotencySK(scope, k string) string { return "IDEM#" + scope + "#" + k }
func icpSK(id string) string               { return "ICP#" + id }
func rateSK(class string, window int64) string {
	return "RATE#" + class + "#" + strconv.FormatInt(window, 10)
}
func audienceSK(id string) string { return "AUDIENCE#" + id }
func audienceMemberSK(aud, contact string) string {
	return "AMEMBER#" + aud + "#" + contact
}

// audienceMemberLSK is an audience member's Slim sort key: the contact's
// createdAt (UTC, fixed width, so it sorts as a string) and then its id, so
// the audience's Slim partition is in the default (createdAt) order. A
// member written before this key has LSK = audienceMemberSK (see
// legacyMembers); "CRT#" sorts after that "AMEMBER#".
func audienceMemberLSK(createdAt time.Time, contact string) string {
	return "CRT#" + createdAt.UTC().Format(timeLayout) + "#" + contact
}

// audienceMemberOSK is an audience member's sort key in the Order index:
// the contact's updatedAt when the build matched it (a member is a
// snapshot: it never changes after) and then its id, so the audience's
// Order partition is in the updatedAt order, ties by contactId.
func audienceMemberOSK(updatedAt time.Time, contact string) string {
	return "UPD#" + updatedAt.UTC().Format(timeLayout) + "#" + contact
}

// memberEntryPrefix is the sort-key prefix of an audience's member
// entries, small items written with its members (memberEntries): one per
// member in contactId order (memberIDSK) and one per word of a member
// (memberWordSK). A member's words are letters and digits only, so a
// word's key prefix ends where the word does at "#".
func memberEntryPrefix(aud string) string { return "AMIDX#" + aud + "#" }
func memberIDSK(aud, contact string) string {
	return memberEntryPrefix(aud) + "I#" + contact
}
func memberWordPrefix(aud, word string) string { return memberEntryPrefix(aud) + "W#" + word }
func memberWordSK(aud, word, contact string) string {
	return memberWordPrefix(aud, word) + "#" + contact
}

func eventSK(id string) string { return "EVENT#" + id }

// pageKey is the Pages index key of a recipient: the prefix its landing
// and claim page ids share (see newPageIDs).
func pageKey(pageID string) string { return pageID[:pageKeyLength] }

// suppressionPrefix starts the keys of the addresses an organization never
// mails again. A key holds a keyed hash of the lower-cased address, not the
// address (suppression_key.go), so a key that reaches a log, an error or a
// table export carries no personal data.
const suppressionPrefix = "SUPPRESS#"

// deletedContactSK is where a soft-deleted contact is kept: outside the
// CONTACT# range and without Slim keys, so pages and searches never see it.
func deletedContactSK(id string) string { return "DELCONTACT#" + id }

// memberPrefix is the sort-key prefix of the members of a list.
func memberPrefix(list string) string { return "MEMBER#" + list + "#" }

// audienceMemberPrefix is the sort-key prefix of the members of an
// audience list.
func audienceMemberPrefix(aud string) string { return "AMEMBER#" + aud + "#" }

// Slim index partitions: one per large collection.
func contactsLPK(org string) string { return orgPK(org) + "#CONTACT" }

// The partitions of a contact's search entries (contacts_search.go): one
// per token of its words (contact.Token), one per normalized LinkedIn URL
// (contact.LinkedinKey). searchSuffix is what follows orgPK in each, as a
// contact item's sx names them.
func tokenSuffix(token string) string     { return "#TOK#" + token }
func linkedinSuffix(key string) string    { return "#LI#" + key }
func searchPK(org, suffix string) string  { return orgPK(org) + suffix }
func searchEntrySK(lsk, id string) string { return lsk + "#" + id }
func contactOfSK(sk string) string        { return strings.TrimPrefix(sk, contactPrefix) }
func contactOfEntrySK(sk string) string {
	return sk[strings.LastIndexByte(sk, '#')+1:]
}
func recipientsLPK(org, campaign string) string {
	return orgPK(org) + "#RCPT#" + campaign
}
func audienceLPK(org, aud string) string { return orgPK(org) + "#AUD#" + aud }
func campaignsLPK(org string) string     { return orgPK(org) + "#CAMPAIGN" }
func personasLPK(org string) string      { return orgPK(org) + "#ICP" }
func audiencesLPK(org string) string     { return orgPK(org) + "#AUDIENCE" }
func eventsLPK(org string) string        { return orgPK(org) + "#EVENT" }

// ledgerLPK is the Slim partition of an organization's ledger entries
// (LSK = the entry's sort key): a deep ledger page skips on these ~100-byte
// entries instead of the entries themselves, which hold their change
// messages.
func ledgerLPK(org string) string { return orgPK(org) + "#LEDGER" }

// deletedAudienceSK is the tombstone of a deleted audience while its
// members are purged: outside the AUDIENCE# range, so the audience is gone
// at once; it is a due item until the purge ends, then removed.
func deletedAudienceSK(id string) string { return "DELAUDIENCE#" + id }

// audienceCopySK is the due item of the copy of audience aud into contact
// list list while the list is filled (copyDue).
func audienceCopySK(aud, list string) string { return "AUDCOPY#" + aud + "#" + list }

// campaignExpirySK is the due item of the expiry of a completed or
// deleted campaign's unclaimed recipients (expiryDue) until its job has
// walked them all.
func campaignExpirySK(campaign string) string { return "EXPIRY#" + campaign }

// deletedEventSK is where a soft-deleted event is kept: outside the EVENT#
// range and without Slim keys, so lists never see it.
func deletedEventSK(id string) string { return "DELEVENT#" + id }

// deletedCampaignSK is where a soft-deleted campaign is kept: outside the
// CAMPAIGN# range and without Slim keys, so campaign pages never see it.
func deletedCampaignSK(id string) string { return deletedCampaignPrefix + id }

// deletedListSK is the tombstone of a deleted contact list while its
// memberships are removed (a due item of the job that removes them); the
// job deletes it when the last membership is gone.
func deletedListSK(id string) string { return "DELLIST#" + id }

// launchSK is the record of a campaign's launch: what was paid, how far the
// launch job got.
func launchSK(campaign string) string { return "LAUNCH#" + campaign }

// Fixed sort keys.
const (
	apiKeySK  = "KEY"
	profileSK = "PROFILE"
	walletSK  = "WALLET"
)

// Sort-key prefixes of collections.
const (
	ledgerPrefix   = "LEDGER#"
	giftPrefix     = "GIFT#"
	templatePrefix = "TEMPLATE#"
	contactPrefix  = "CONTACT#"
	listPrefix     = "LIST#"
	campaignPrefix = "CAMPAIGN#"
	icpPrefix      = "ICP#"
	audiencePrefix = "AUDIENCE#"
	eventPrefix    = "EVENT#"
	// deletedCampaignPrefix starts every soft-deleted campaign's key.
	deletedCampaignPrefix = "DELCAMPAIGN#"
	// recipientPrefix starts every recipient's sort key (RCPT#<campaign>#<id>).
	recipientPrefix = "RCPT#"
)

// messageSK is the sort key of a sent message's item.
const messageSK = "MSG"

// Index names, as in template.yaml.
const (
	// indexDue is sparse: only items with outstanding work carry its keys,
	// dueShard and dueAt; it projects the few attributes the tick reads.
	// The operator's queue of open service orders has partitions of its
	// own in it (serviceQueuePK), which the tick never reads.
	indexDue  = "Due"
	indexSlim = "Slim"
	// indexOrder is sparse and keys only: audience members carry its
	// keys, OPK (the audience's Slim partition key) and OSK
	// (audienceMemberOSK).
	indexOrder = "Order"
	// indexPages is sparse: recipients of legacy page ids carry its key,
	// pg, and service-catalog orders theirs (serviceOrderPG).
	indexPages = "Pages"
	// indexSort is sparse and keys only: a second order of Slim partitions
	// (LPK), for the items that carry SSK: recipients (recipientNameSSK).
	indexSort = "Sort"
)

// dueShards is the number of partitions of the due index. Items spread
// over them by a hash of their key, so no single index partition takes all
// the scheduler's writes; an idle tick reads each once.
const dueShards = 4

// dueTimeLayout is the fixed-width UTC time that starts a due sort key, so
// sort keys order by due time.
const dueTimeLayout = "2006-01-02T15:04:05.000Z"

// dueShardPK is the due-index partition of shard.
func dueShardPK(shard int) string { return "DUE#" + strconv.Itoa(shard) }

// dueShardOf is the due-index shard of the item pk/sk: fixed for the item,
// so moving its due time never moves it to another partition.
func dueShardOf(pk, sk string) int {
	h := fnv.New32a()
	h.Write([]byte(pk + "\x00" + sk))
	return int(h.Sum32() % dueShards)
}

// dueSK is the due-index sort key of the item pk/sk due at at: the time,
// then 13 characters of a hash of the item's key, so items due at the same
// millisecond still have keys of their own without spelling out the
// item's key (written on every item that is due, and copied into its index
// entry). Items written before carry "<time>#<pk>#<sk>"; the time is read
// from the front of both (DueItems).
func dueSK(at time.Time, pk, sk string) string {
	h := fnv.New64a()
	h.Write([]byte(pk + "\x00" + sk))
	return at.UTC().Format(dueTimeLayout) + "#" + strconv.FormatUint(h.Sum64(), 32)
}

// dueUpTo is the upper bound of the due sort keys of items due at or
// before at ("~" sorts after the "#" that follows the time).
func dueUpTo(at time.Time) string { return at.UTC().Format(dueTimeLayout) + "~" }

// changesPK is the partition of an organization's change records: apart
// from the organization's own, so the feed's Query reads nothing else.
func changesPK(org string) string { return orgPK(org) + changesSuffix }

// changesSuffix ends the partition key of an organization's change records.
const changesSuffix = "#CHG"

// Webhook endpoints, the delivery of one message to one endpoint, and the
// log of attempts, per endpoint.
func webhookSK(id string) string { return webhookPrefix + id }
func webhookDeliverySK(webhook, msg string) string {
	return "WHMSG#" + webhook + "#" + msg
}
func webhookLogPrefix(webhook string) string      { return "WHLOG#" + webhook + "#" }
func webhookLogSK(webhook, attempt string) string { return webhookLogPrefix(webhook) + attempt }

// webhookPrefix starts every endpoint's sort key.
const webhookPrefix = "WEBHOOK#"

// orgOfPK is the organization of a tenant partition key.
func orgOfPK(pk string) string { return strings.TrimPrefix(pk, "ORG#") }
