"""A synthetic banking corpus built from a small grammar (intents x phrasings x slots, with
openers, fillers, typos and speech-recognition slips), for `handoff learn` and the benchmarks.

Run: `python tests/bench/gen_corpus.py OUT.csv [--rows N] [--seed S]`. Deterministic for a
seed. It shares no sentence with the hand-written corpora in configs/banking/corpus/.
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
from pathlib import Path

CARD = ["card", "debit card", "credit card", "bank card", "visa card", "contactless card"]
MONEY = ["money", "funds", "cash", "£50", "$200", "100 euros", "my wages", "the payment"]
WHEN = ["yesterday", "this morning", "last week", "on Friday", "two days ago", "just now", ""]
PLACE = ["a petrol station", "the airport", "a cafe", "the gym", "a website", "an online shop"]
SHOP = ["the airline", "an online shop", "the hotel", "a restaurant", "the retailer", "amazon"]

INTENTS: dict[str, tuple[str, list[str]]] = {
    "card_arrival": ("concierge", [
        "my {card} has not turned up {when}", "still waiting for the {card} you posted",
        "the {card} you sent never came", "when does the {card} get here",
        "is my {card} on its way", "no sign of the {card} in the post"]),
    "card_activation": ("concierge", [
        "need to activate the {card}", "how to activate a {card}",
        "where is the activation for my {card}", "the {card} arrived but it is not active"]),
    "pin": ("concierge", [
        "i need a different pin for my {card}", "locked my pin on the {card}",
        "pin for the {card} got blocked", "what's the pin on the {card}",
        "reset pin please"]),
    "top_up": ("concierge", [
        "tried topping up {money} and it failed", "topping up {money} by card",
        "how to top up {money}", "top up stuck as pending {when}",
        "is there a charge for topping up"]),
    "transfer": ("concierge", [
        "transfer of {money} still has not reached my friend", "sending {money} abroad",
        "payment to my landlord is stuck", "can i stop the transfer i made {when}",
        "how long until {money} I transferred arrives", "can't add a recipient for {money}"]),
    "exchange": ("concierge", [
        "what rate do i get for {money} in dollars", "convert {money} to euros",
        "the conversion rate looked off {when}", "exchanging {money} into yen"]),
    "fees": ("concierge", [
        "got a fee for taking out {money}", "why was there a charge on my withdrawal",
        "what do you charge for using the {card} abroad", "fee on the transfer {when}"]),
    "declined": ("concierge", [
        "the {card} got rejected at {place}", "payment declined at {place} {when}",
        "{card} refused at the till", "cash point said no to my {card}"]),
    "not_working": ("concierge", [
        "the {card} just does not work", "the {card} stopped working {when}",
        "tapping the {card} does nothing", "cash machine kept my {card}"]),
    "pending": ("concierge", [
        "purchase at {place} still pending", "withdrawal of {money} is pending",
        "why is {money} showing as pending"]),
    "refund_status": ("concierge", [
        "refund from {shop} not in my account yet", "waiting on a refund from {shop}",
        "{shop} said they refunded me {when} but nothing"]),
    "identity": ("concierge", [
        "need to prove my identity", "the id check is not working",
        "what documents to verify who i am", "why am i being asked to verify"]),
    "details": ("concierge", [
        "new address to update", "need my phone number changed", "update my surname",
        "shut down my account please", "how much is in my account", "send me a statement"]),
    "stolen_card": ("fraud_agent", [
        "my {card} has been stolen {when}", "thief took my {card} at {place}",
        "{card} was nicked {when}", "somebody pinched my {card}",
        "robbed {when} and the {card} is gone"]),
    "lost_card": ("fraud_agent", [
        "misplaced my {card} {when}", "lost the {card} at {place}",
        "the {card} is lost", "no idea where my {card} went {when}"]),
    "unrecognised": ("fraud_agent", [
        "charge from {place} i do not know about", "who took {money} from me {when}",
        "a purchase at {place} that i never did", "{money} gone and i have no clue why",
        "i do not recognise a payment of {money}"]),
    "compromised": ("fraud_agent", [
        "my {card} number got leaked", "someone cloned the {card}",
        "i think my {card} details are out there", "gave my details to a fake site {when}"]),
    "takeover": ("fraud_agent", [
        "someone else is logged into my banking", "my login was changed {when} not by me",
        "account hacked {when}", "there is a fraudster in my account"]),
    "dispute": ("claims", [
        "{shop} took {money} twice", "double payment to {shop} {when}",
        "the thing from {shop} never got delivered", "{shop} will not give {money} back",
        "want to challenge a payment to {shop}", "atm only gave me half of {money}"]),
    "insurance": ("claims", [
        "claim for a broken phone bought on the {card}", "travel cover claim after {when}",
        "status of my claim", "open a claim please"]),
    "card_product": ("card_recommendation", [
        "best {card} for travelling", "which {card} gives points",
        "upgrade to a better {card}", "want a second {card} for my partner",
        "get a virtual {card} for online", "does the {card} come as visa or mastercard"]),
    "investing": ("investment_advisor", [
        "put {money} into the stock market", "buying shares with {money}",
        "moving my pension over", "what is my portfolio worth", "advice on index funds"]),
    "compliance": ("compliance_desk", [
        "formal complaint about {when}", "i will go to the ombudsman",
        "we need records for a court case", "request all personal data you store",
        "explain why you want proof of where {money} came from"]),
}

OPENERS = ["", "", "", "hi ", "hello, ", "hey ", "good morning, ", "um ", "yeah so ", "so "]
CLOSERS = ["", "", "", " please", " thanks", " can you help", " what do i do", "?"]
FILLERS = ["um", "uh", "er", "like", "you know"]
SLIPS = {"card": "cart", "stolen": "stolon", "pin": "pen", "transfer": "transfur",
         "account": "a count", "refund": "re fund", "balance": "ballance"}


def _noisy(text: str, rng: random.Random) -> str:
    words = text.split()
    if rng.random() < 0.25 and len(words) > 2:
        words.insert(rng.randrange(1, len(words)), rng.choice(FILLERS))
    if rng.random() < 0.1:
        words = [SLIPS.get(w, w) if rng.random() < 0.5 else w for w in words]
    if rng.random() < 0.1:
        n = rng.randrange(len(words))
        w = words[n]
        if len(w) > 3:
            i = rng.randrange(len(w) - 1)
            words[n] = w[:i] + w[i + 1] + w[i] + w[i + 2:]
    return " ".join(words)


def generate(rows: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    names = sorted(INTENTS)
    weights = [4 if INTENTS[n][0] == "concierge" else 3 for n in names]
    out = []
    for _ in range(rows):
        agent, phrasings = INTENTS[rng.choices(names, weights)[0]]
        core = rng.choice(phrasings).format(
            card=rng.choice(CARD), money=rng.choice(MONEY), when=rng.choice(WHEN),
            place=rng.choice(PLACE), shop=rng.choice(SHOP))
        text = rng.choice(OPENERS) + " ".join(core.split()) + rng.choice(CLOSERS)
        out.append((_noisy(text, rng).strip(), agent))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    with args.out.open("w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(["text", "agent"])
        writer.writerows(generate(args.rows, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
