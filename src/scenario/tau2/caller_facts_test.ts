import { deepEqual, equal } from "node:assert/strict";
import { callerFacts, firstPerson, openingLine } from "./caller_facts.ts";

Deno.test("callerFacts() reads a name and zip code", () => {
  deepEqual(callerFacts("You are Nora Quist in zip code 40211.", "You want to return a mug."), {
    name: "Nora Quist",
    "first name": "Nora",
    "last name": "Quist",
    "zip code": "40211",
  });
});

Deno.test("callerFacts() reads user ids, emails, phone numbers and location", () => {
  const facts = callerFacts(
    "Your name is Lev Ortiz. Your user id is lev_ortiz_5150, your email lev.o@example.com. " +
      "You are Lev Ortiz with phone number 555-010-2030. You are currently abroad in Peru.",
    "You want to pay with gift_card_1234567.",
  );
  equal(facts["user id"], "lev_ortiz_5150");
  equal(facts["email"], "lev.o@example.com");
  equal(facts["phone number"], "555-010-2030");
  equal(facts["location"], "abroad in Peru");
});

Deno.test("callerFacts() collects order and reservation ids from the reason for calling", () => {
  const facts = callerFacts(
    "You are Ana Mele.",
    "You want to cancel reservations QWERTY and 4XK9PL, and return order W1234567 and #W7654321.",
  );
  equal(facts["order id"], "#W1234567, #W7654321");
  equal(facts["reservation id"], "QWERTY, 4XK9PL");
});

Deno.test("callerFacts() tells a flight number from a reservation id", () => {
  const facts = callerFacts(
    "You are Ana Mele.",
    "Your flight HAT039 was late; it is on reservation 4XK9PL.",
  );
  equal(facts["flight number"], "HAT039");
  equal(facts["reservation id"], "4XK9PL");
});

Deno.test("callerFacts() does not take capitalised words for reservation ids", () => {
  const facts = callerFacts("You are Ana Mele.", "You are ANGRY about a DELAYED flight.");
  equal(facts["reservation id"], undefined);
});

Deno.test("openingLine() turns the first sentence into the caller's own words", () => {
  equal(
    openingLine("You want to cancel reservation 4XK9PL. It was booked last week."),
    "Hi. I want to cancel reservation 4XK9PL.",
  );
  equal(
    openingLine("Your mobile data stopped working and you are at home."),
    "Hi. My mobile data stopped working and I am at home.",
  );
  equal(openingLine("."), "Hi, I need some help, please.");
  equal(
    openingLine("You want it sent home instead (you do not say where. Or why)."),
    "Hi. I want it sent home instead.",
  );
  equal(openingLine(".\n\nYou received your lamp."), "Hi. I received my lamp.");
});

Deno.test("openingLine() cuts a very long first sentence at a comma", () => {
  const long = "You want to change " + "a very long list of things, ".repeat(12) + "today.";
  const line = openingLine(long);
  equal(line.length <= 205, true);
  equal(line.endsWith("things."), true);
});

Deno.test("firstPerson() says 'me' after a preposition", () => {
  equal(
    firstPerson("The agent told you to wait for your refund."),
    "The agent told me to wait for my refund.",
  );
  equal(firstPerson("You think you've paid."), "I think I've paid.");
});
