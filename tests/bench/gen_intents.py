"""A harder synthetic banking corpus: 70 fine-grained intents mapped onto the banking desks,
with the same carrier phrases shared across desks ("the payment at {shop} ..." then "was
declined" / "went through twice" / "wasn't me"), most traffic everyday (concierge), terse
requests, typos and speech-recognition noise.

Run: `python tests/bench/gen_intents.py OUT.csv [--rows N] [--seed S] [--intents]`.
Deterministic for a seed. Every phrase was written for this generator.
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
from pathlib import Path

from gen_noise import noisy

SLOTS: dict[str, list[str]] = {
    "card": ["card", "card", "debit card", "credit card", "bank card", "visa", "mastercard",
             "new card", "contactless card"],
    "payment": ["payment", "payment", "transaction", "charge", "purchase", "card payment",
                "debit"],
    "shop": ["a shop", "the supermarket", "amazon", "a restaurant", "a petrol station",
             "an online store", "the hotel", "uber", "a cafe", "the airline", "netflix",
             "a website", "the pharmacy", "ikea"],
    "amount": ["£20", "£45.99", "$300", "50 euros", "£120", "a tenner", "200 quid", "£9.99",
               "£1,500", "80 dollars"],
    "when": ["", "", "", "yesterday", "today", "this morning", "last night", "on monday",
             "last week", "three days ago", "a fortnight ago", "just now"],
    "place": ["in spain", "in the us", "abroad", "at the airport", "in town", "on holiday",
              "in france", "at the station", "in tokyo", ""],
    "money": ["money", "money", "cash", "funds", "my wages", "the rent", "£500", "the deposit"],
    "person": ["my friend", "my mum", "my landlord", "a colleague", "my son", "someone",
               "my partner", "a supplier"],
    "currency": ["euros", "dollars", "yen", "pounds", "swiss francs", "zloty", "dirhams"],
    "atm": ["atm", "cash machine", "cashpoint", "hole in the wall", "machine"],
    "device": ["phone", "mobile", "iphone", "tablet"],
    "doc": ["passport", "driving licence", "id card", "utility bill", "selfie"],
    "family": ["my daughter", "my son", "my husband", "my wife", "my partner", "my kid",
               "my teenager", "my mum"],
}

# (agent, weight, phrasings). Weights give a realistic mix: most calls are everyday ones.
INTENTS: dict[str, tuple[str, int, list[str]]] = {
    # ---- concierge: cards ---------------------------------------------------------------
    "card_arrival": ("concierge", 14, [
        "my {card} hasn't arrived", "still waiting for my {card} to come in the post",
        "when will my {card} be delivered", "the {card} you sent {when} never turned up",
        "how long does a {card} take to arrive", "no sign of my {card}", "card not arrived",
        "is my {card} on its way", "where is my new card", "card delivery"]),
    "card_activation": ("concierge", 10, [
        "how do i activate my {card}", "the {card} arrived, how do i switch it on",
        "activate card", "i can't activate the {card} in the app",
        "my {card} came but it isn't active yet", "what do i do to start using my {card}"]),
    "card_expiring": ("concierge", 8, [
        "my {card} expires next month", "my {card} has expired", "card expired",
        "will you send a new {card} before this one expires",
        "the expiry date on my {card} is coming up", "renewal of an expired {card}"]),
    "card_damaged": ("concierge", 8, [
        "my {card} is damaged", "the chip on my {card} is broken", "my {card} snapped",
        "the {card} is cracked and needs replacing", "replace my broken {card}",
        "the magnetic strip on my {card} is worn", "card damaged need a replacement"]),
    "card_not_working": ("concierge", 12, [
        "my {card} isn't working", "the {card} stopped working {when}",
        "contactless doesn't work on my {card}", "card not working",
        "the {card} won't work {place}", "shops can't read my {card}",
        "my {card} just doesn't go through anywhere"]),
    "card_swallowed": ("concierge", 7, [
        "the {atm} swallowed my {card}", "the {atm} kept my {card} {when}",
        "{atm} ate my card", "my {card} got stuck in the {atm}",
        "how do i get my {card} back from the {atm}"]),
    "card_delivery_address": ("concierge", 4, [
        "can you send my {card} to a different address", "i moved, where will my {card} go",
        "change the delivery address for my {card}"]),
    "mobile_wallet": ("concierge", 6, [
        "how do i add my {card} to apple pay", "google pay won't accept my {card}",
        "can i use my {card} with my {device} to pay", "apple pay not working",
        "adding the {card} to my wallet fails"]),
    "card_abroad": ("concierge", 6, [
        "can i use my {card} {place}", "which countries does my {card} work in",
        "does the {card} work abroad", "going travelling, will my {card} work"]),
    # ---- concierge: pins and access ------------------------------------------------------
    "pin_change": ("concierge", 6, [
        "how do i change my pin", "i want a new pin for my {card}", "change pin",
        "can i pick a different pin at the {atm}"]),
    "pin_blocked": ("concierge", 9, [
        "my pin is blocked", "i forgot my pin", "entered the wrong pin three times",
        "pin locked", "how do i unblock my pin", "i can't remember the pin for my {card}",
        "where can i see my pin"]),
    "passcode_login": ("concierge", 10, [
        "i can't log in to the app", "forgot my passcode", "locked out of online banking",
        "reset my password", "the app says my passcode is wrong", "login not working",
        "i never got the code to log in", "cant get into my account on the {device}"]),
    # ---- concierge: top ups --------------------------------------------------------------
    "top_up_failed": ("concierge", 8, [
        "my top up failed", "the top up didn't go through", "top up declined",
        "i tried to top up {amount} and it failed", "why won't my top up work"]),
    "top_up_pending": ("concierge", 6, [
        "my top up is still pending", "top up pending since {when}",
        "the {amount} top up hasn't shown in my balance", "top up not showing"]),
    "top_up_methods": ("concierge", 7, [
        "how do i top up", "can i top up with cash", "can i add money by bank transfer",
        "can i pay a cheque in", "ways to put money into my account", "top up by card"]),
    "top_up_limits": ("concierge", 3, [
        "what is the top up limit", "is there a maximum i can top up",
        "how much can i add in one go"]),
    "top_up_reverted": ("concierge", 4, [
        "my top up was reverted", "the top up came back out of my account",
        "top up reversed"]),
    "deposit_not_showing": ("concierge", 5, [
        "i paid in a cheque and it hasn't cleared", "my cash deposit isn't showing",
        "the money i paid in {when} isn't in my balance", "balance not updated after a deposit"]),
    # ---- concierge: transfers ------------------------------------------------------------
    "transfer_pending": ("concierge", 10, [
        "my transfer is still pending", "the transfer to {person} hasn't arrived",
        "{person} hasn't received the {money} i sent {when}", "transfer not received",
        "how long does a transfer take", "sent {amount} to {person} and it's not there"]),
    "transfer_failed": ("concierge", 7, [
        "my transfer failed", "the transfer to {person} was declined",
        "why can't i send {money} to {person}", "transfer rejected",
        "the bank transfer keeps failing"]),
    "cancel_transfer": ("concierge", 5, [
        "can i cancel a transfer", "i sent {money} to the wrong account",
        "stop the transfer i just made", "i want to reverse a transfer to {person}"]),
    "receiving_money": ("concierge", 7, [
        "my salary hasn't come in", "how do i receive money from abroad",
        "someone sent me {money} and i can't see it", "what details do i give to get paid",
        "waiting for {money} from {person}"]),
    "payees": ("concierge", 5, [
        "how do i add a new payee", "i can't add a beneficiary",
        "set up a standing order to {person}", "how do i send {money} to {person}"]),
    # ---- concierge: currencies and fees --------------------------------------------------
    "exchange_rate": ("concierge", 7, [
        "what is the exchange rate for {currency}", "what rate do you use",
        "how much are {currency} today", "exchange rate", "what's the rate for {currency}"]),
    "wrong_exchange_rate": ("concierge", 7, [
        "the exchange rate on my {payment} {place} was wrong",
        "i was charged a bad rate on a {payment} at {shop}",
        "the {payment} in {currency} used the wrong rate",
        "you gave me a terrible rate when i paid {place}",
        "the conversion on my {payment} looks off"]),
    "exchange_currency": ("concierge", 5, [
        "how do i exchange {currency}", "can i hold {currency} in my account",
        "which currencies do you support", "convert my pounds into {currency}"]),
    "card_payment_fee": ("concierge", 6, [
        "why was i charged a fee on my {payment} at {shop}",
        "there's an extra fee on a {payment}", "fee on card payment",
        "you charged me for paying by card {place}", "what is this fee on my {payment}"]),
    "atm_fee": ("concierge", 6, [
        "why was i charged for taking out cash", "fee for using the {atm}",
        "is there a fee for cash withdrawals", "atm fee",
        "how many free withdrawals do i get", "i got charged for a withdrawal {place}"]),
    "transfer_fee": ("concierge", 4, [
        "is there a fee for transfers", "why did i pay a fee to send {money}",
        "transfer fee", "what does it cost to send {money} abroad"]),
    # ---- concierge: payments, withdrawals, refunds ---------------------------------------
    "card_payment_declined": ("concierge", 10, [
        "my {payment} at {shop} was declined", "my {card} was declined {when}",
        "why was my {payment} refused", "card declined", "{shop} said my {card} was rejected",
        "the {payment} won't go through"]),
    "atm_declined": ("concierge", 6, [
        "the {atm} declined my {card}", "i couldn't take cash out {place}",
        "the {atm} wouldn't give me money", "withdrawal declined"]),
    "pending_card_payment": ("concierge", 8, [
        "my {payment} at {shop} is still pending", "why is this {payment} pending",
        "pending payment", "the {payment} from {when} hasn't cleared",
        "a {payment} has been pending for days"]),
    "pending_cash_withdrawal": ("concierge", 4, [
        "my cash withdrawal is pending", "the withdrawal from {when} still shows pending",
        "withdrawal pending"]),
    "refund_not_showing": ("concierge", 8, [
        "my refund from {shop} isn't showing", "{shop} refunded me but i can't see it",
        "when will my refund arrive", "refund not received",
        "waiting for a refund from {shop}", "the refund still isn't in my account"]),
    "request_refund": ("concierge", 5, [
        "how do i get a refund", "can i ask for a refund on a {payment}",
        "i'd like a refund for something i bought", "request a refund"]),
    # ---- concierge: identity and account --------------------------------------------------
    "verify_identity": ("concierge", 6, [
        "how do i verify my identity", "why do you need to verify me",
        "what documents do you accept for verification", "can i use my {doc} to verify",
        "verify identity"]),
    "verification_failed": ("concierge", 5, [
        "my identity check failed", "the app won't accept my {doc}",
        "verification keeps failing", "my {doc} was rejected"]),
    "balance_statement": ("concierge", 8, [
        "what's my balance", "i need a statement", "send me last month's statement",
        "how much money do i have", "balance", "statement please",
        "i need a statement for my mortgage"]),
    "personal_details": ("concierge", 7, [
        "i need to change my address", "update my phone number", "change my email",
        "i got married and need to change my name", "update my details"]),
    "close_account": ("concierge", 4, [
        "close my account", "i want to cancel my account", "how do i close this account"]),
    "direct_debits": ("concierge", 6, [
        "how do i set up a direct debit", "cancel a direct debit",
        "stop my direct debit to {shop}", "my direct debit didn't go out",
        "direct debit"]),
    "account_limits": ("concierge", 4, [
        "what's my daily withdrawal limit", "can i raise my spending limit",
        "increase my contactless limit", "what are my limits"]),
    # ---- fraud -----------------------------------------------------------------------------
    "card_payment_not_recognised": ("fraud_agent", 14, [
        "there's a {payment} at {shop} i don't recognise", "i didn't make this {payment}",
        "a {payment} from {shop} that wasn't me", "unknown {payment} on my {card}",
        "i never bought anything from {shop}", "who is {shop}, i never paid them",
        "payment i don't recognise", "{amount} went to {shop} and it wasn't me"]),
    "cash_withdrawal_not_recognised": ("fraud_agent", 6, [
        "there's a cash withdrawal i didn't make", "someone took cash out with my {card}",
        "a withdrawal {place} that wasn't me", "i don't recognise this {atm} withdrawal",
        "unknown withdrawal"]),
    "direct_debit_not_recognised": ("fraud_agent", 5, [
        "there's a direct debit i never set up", "a direct debit i don't recognise",
        "who is taking this direct debit, i never agreed to it", "unknown direct debit"]),
    "lost_card": ("fraud_agent", 10, [
        "i lost my {card}", "i can't find my {card}", "lost card",
        "i left my {card} {place}", "my {card} is missing", "i dropped my {card} {when}"]),
    "stolen_card": ("fraud_agent", 9, [
        "my {card} was stolen", "someone stole my {card} {when}", "stolen card",
        "my wallet was nicked {place}", "i was robbed and they took my {card}",
        "my bag was stolen with my cards"]),
    "lost_or_stolen_phone": ("fraud_agent", 5, [
        "i lost my {device}", "my {device} was stolen", "someone stole my {device} with the app",
        "lost phone"]),
    "compromised_card": ("fraud_agent", 6, [
        "my {card} details were leaked", "i think my {card} was cloned",
        "i typed my {card} number into a fake site", "card compromised",
        "someone has my card details"]),
    "scam": ("fraud_agent", 6, [
        "i think i've been scammed", "someone called pretending to be the bank",
        "i got a text asking for my details", "i clicked a dodgy link",
        "i sent {money} to a scammer", "scam"]),
    "account_takeover": ("fraud_agent", 5, [
        "someone else is logged into my account", "my password was changed and it wasn't me",
        "my account was hacked", "i got a login alert that wasn't me"]),
    # ---- claims ----------------------------------------------------------------------------
    "item_not_received": ("claims", 7, [
        "i paid {shop} but the order never arrived", "my order from {shop} never came",
        "paid for something that was never delivered", "item never arrived",
        "{shop} took my money and sent nothing"]),
    "refund_refused": ("claims", 6, [
        "{shop} won't give me a refund", "i sent it back and {shop} refuses to refund me",
        "the merchant won't refund my {payment}", "returned the item but no refund from {shop}",
        "refund refused"]),
    "charged_twice": ("claims", 7, [
        "i was charged twice at {shop}", "the same {payment} went through twice",
        "{shop} took the {payment} two times", "charged twice", "double payment at {shop}"]),
    "wrong_cash_amount": ("claims", 5, [
        "the {atm} gave me less cash than i asked for", "i only got half the cash out",
        "the {atm} didn't give me the money but took it from my account",
        "wrong amount of cash from the {atm}"]),
    "cancelled_still_charged": ("claims", 5, [
        "i cancelled my subscription but {shop} still charges me",
        "{shop} keeps taking money after i cancelled", "still charged after cancelling",
        "cancelled my booking and they charged me anyway"]),
    "overcharged": ("claims", 5, [
        "{shop} charged me more than the price", "the {payment} at {shop} was for the wrong amount",
        "overcharged by {shop}", "{shop} billed me {amount} instead of the quoted price"]),
    "insurance_claim": ("claims", 6, [
        "i want to claim on my travel insurance", "my purchase broke, can i claim",
        "what's the status of my claim", "file a claim", "purchase protection claim",
        "my flight was cancelled, can i claim"]),
    # ---- card products ---------------------------------------------------------------------
    "choose_card": ("card_recommendation", 6, [
        "which {card} is best for me", "i want to apply for a credit card",
        "what cards do you offer", "compare your cards", "best card for travelling"]),
    "upgrade_card": ("card_recommendation", 4, [
        "i want to upgrade my {card}", "can i get the premium card", "upgrade card",
        "switch to a better card"]),
    "virtual_card": ("card_recommendation", 5, [
        "how do i get a virtual card", "can i have a virtual {card}",
        "i'd like a virtual card for online shopping", "virtual card"]),
    "disposable_card": ("card_recommendation", 4, [
        "how do i get a disposable card", "can i use a disposable card more than once",
        "single use card for a website", "disposable virtual card"]),
    "extra_card": ("card_recommendation", 5, [
        "can i get a second {card} for {family}", "i want a card for {family}",
        "spare card", "an additional card on my account", "can {family} have a card"]),
    "physical_card": ("card_recommendation", 4, [
        "i only have a virtual card, can i get a physical one", "order a physical card",
        "i want a plastic card as well"]),
    "visa_or_mastercard": ("card_recommendation", 3, [
        "is the card visa or mastercard", "can i have mastercard instead of visa",
        "visa or mastercard"]),
    # ---- investments ----------------------------------------------------------------------
    "investing": ("investment_advisor", 4, [
        "i want to invest {money}", "how do i buy shares", "what funds do you offer",
        "open a stocks and shares isa", "how is my portfolio doing"]),
    "pension": ("investment_advisor", 3, [
        "i want to move my pension", "saving for retirement", "transfer my old pension to you",
        "when can i take my pension"]),
    # ---- compliance -----------------------------------------------------------------------
    "complaint": ("compliance_desk", 4, [
        "i want to make a formal complaint", "i'm taking this to the ombudsman",
        "complaint about your service", "escalate my complaint"]),
    "data_legal": ("compliance_desk", 2, [
        "i want all the data you hold on me", "my solicitor needs my records",
        "subject access request", "court order for account records"]),
    "source_of_funds": ("compliance_desk", 2, [
        "why do you want to know where my {money} came from",
        "how do i prove the source of funds", "source of funds check"]),
    "unsuitable_advice": ("compliance_desk", 1, [
        "the investment advice i got was unsuitable", "i was mis-sold a product"]),
}

OPENERS = ["", "", "", "", "", "hi ", "hello ", "hi there, ", "good morning, ", "yeah hi ",
           "so ", "quick question, ", "i'm calling because ", "um ", "hey, "]
CLOSERS = ["", "", "", "", "", " please", " thanks", " can you help", " what do i do",
           " why", "?", " asap", " what's going on", " can you check"]
CONTEXT = ["i'm abroad at the moment", "it's quite urgent", "i already checked the app",
           "this is on my debit card", "i've been with you for years",
           "my husband usually sorts this out", "i looked at my statement",
           "it was about {amount}", "i'm on my lunch break", "it happened {when}",
           "the app shows nothing", "i need the money for rent", "i'm really worried",
           "this is the second time this month", "i'm at {shop} right now",
           "i have the card in my hand", "nobody has called me back",
           "i got an email about it", "the payment was to {shop}", "it's my business account"]
"""Clauses callers add around the request: the words of other intents, as noise."""
HELD_OUT = "test"
"""The part that also draws each intent's last phrasing (never seen in training)."""


def _fill(template: str, rng: random.Random) -> str:
    for slot, values in SLOTS.items():
        while "{" + slot + "}" in template:
            template = template.replace("{" + slot + "}", rng.choice(values), 1)
    return " ".join(template.split())


def _request(phrasings: list[str], rng: random.Random) -> str:
    core = _fill(rng.choice(phrasings), rng)
    roll = rng.random()
    if roll < 0.15:
        core = f"{_fill(rng.choice(CONTEXT), rng)}, {core}"
    elif roll < 0.3:
        core = f"{core}, {_fill(rng.choice(CONTEXT), rng)}"
    return (rng.choice(OPENERS) + core + rng.choice(CLOSERS)).strip()


def generate_labelled(rows: int, seed: int, *, part: str = "train"
                      ) -> list[tuple[str, str, str]]:
    """`rows` requests as (text, agent, intent), drawn by intent weight. The `test` part
    also draws each intent's last phrasing, which the `train` part never uses."""
    rng = random.Random(seed)
    names = sorted(INTENTS)
    weights = [INTENTS[name][1] for name in names]
    out = []
    for _ in range(rows):
        intent = rng.choices(names, weights)[0]
        agent, _weight, phrasings = INTENTS[intent]
        usable = phrasings if part == HELD_OUT else phrasings[:-1]
        out.append((noisy(_request(usable, rng), rng), agent, intent))
    return out


def generate(rows: int, seed: int, *, part: str = "train") -> list[tuple[str, str]]:
    """`rows` requests as (text, agent)."""
    return [(t, agent) for t, agent, _intent in generate_labelled(rows, seed, part=part)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--part", choices=("train", "test"), default="train",
                        help="test: also each intent's held-out phrasing")
    parser.add_argument("--intents", action="store_true", help="add an `intent` column")
    args = parser.parse_args(argv)
    with args.out.open("w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(["text", "agent", "intent"] if args.intents else ["text", "agent"])
        for text, agent, intent in generate_labelled(args.rows, args.seed,
                                                          part=args.part):
            writer.writerow([text, agent, intent] if args.intents else [text, agent])
    return 0


if __name__ == "__main__":
    sys.exit(main())
