/**
 * eva_itsm's facilities flows: desks and parking (with cooldowns and waitlists),
 * ergonomic equipment, conference rooms and their calendar invites.
 *
 * @module
 */
import { at, dict, get, setDefault, truthy, zfill } from "../eva_common/eva_tool.ts";
import { choice, int, list, optional, str } from "../eva_common/pydantic.ts";
import { addDays, daysBetween, formatDate, parseDate } from "../eva_common/py_date.ts";
import { pyStr } from "../eva_airline/python_text.ts";
import {
  buildingCode,
  date,
  deskCode,
  employeeId,
  EQUIPMENT_TYPES,
  FLOOR_CODE,
  floorCode,
  INTERACTION_FLOWS,
  PARKING_ZONE,
  parkingSpaceId,
  requestId,
  RESOLUTION_TYPES,
  ROOM_EQUIPMENT,
  roomCode,
  time,
  WAITLIST_RESOURCES,
} from "./params.ts";
import {
  authed,
  authRequired,
  currentDate,
  employee,
  employeeNotFound,
  itsmTool,
  requestIdFor,
  resolveFacility,
} from "./world.ts";

type Rec = Record<string, unknown>;

export const checkDeskAvailability = itsmTool({
  name: "check_desk_availability",
  kind: "read",
  description: "List the available desks on a floor of a building (code or name).",
  args: { building_code: buildingCode(), floor_code: floorCode() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const [bcode, err] = resolveFacility("building", p.building_code, db);
    if (err) return err;
    const desks = dict(dict(db, "facilities"), "desks");
    const avail = Object.entries(desks)
      .filter(([, d]) =>
        d.building_code === bcode && d.floor_code === p.floor_code && d.status === "available"
      )
      .map(([c, d]) => ({
        desk_code: c,
        zone: d.zone ?? null,
        near_window: get(d, "near_window", false),
      }));
    return {
      status: "success",
      building_code: bcode,
      available_desks: avail,
      message: `${avail.length} desk(s)`,
    };
  },
});

function cooldown(db: Rec, last: string, limit: number, what: string): Rec | undefined {
  const days = daysBetween(parseDate(currentDate(db)), parseDate(last));
  if (days >= limit) return undefined;
  return {
    status: "error",
    error_type: "too_soon",
    days_since_last: days,
    cooldown_days: limit,
    last_assignment_date: last,
    message:
      `${what} reassignment cooldown: last assignment was ${days} days ago; must wait at least ${limit} days. Eligible again after ${
        formatDate(addDays(parseDate(last), limit))
      }.`,
  };
}

export const submitDeskAssignment = itsmTool({
  name: "submit_desk_assignment",
  kind: "write",
  description: "Assign an available desk to the employee (90 days after a previous assignment).",
  args: { employee_id: employeeId(), desk_code: deskCode() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const emp = employee(db, p.employee_id);
    if (truthy(emp) && truthy(emp!.assigned_desk)) {
      return {
        status: "error",
        error_type: "already_assigned",
        message: `Employee already has desk ${
          pyStr(emp!.assigned_desk)
        }. Release it first to request a new one.`,
      };
    }
    const last = truthy(emp) ? emp!.last_desk_assignment_date : emp;
    if (truthy(last)) {
      const e = cooldown(db, last, 90, "Desk");
      if (e) return e;
    }
    const desk = at(dict(dict(db, "facilities"), "desks"), p.desk_code);
    if (!truthy(desk)) {
      return { status: "error", error_type: "not_found", message: `Desk ${p.desk_code} not found` };
    }
    if (desk!.status !== "available") {
      return { status: "error", error_type: "not_available", message: "Not available" };
    }
    Object.assign(desk!, { status: "assigned", assigned_employee_id: p.employee_id });
    if (emp !== undefined && emp !== null) {
      emp.assigned_desk = p.desk_code;
      emp.last_desk_assignment_date = currentDate(db);
    }
    return {
      status: "success",
      request_id: requestIdFor({
        employee_id: p.employee_id,
        desk_code: p.desk_code,
        request_type: "desk_assignment",
        created_date: currentDate(db),
      }, "FAC"),
      desk_code: p.desk_code,
      message: `Assigned ${p.desk_code}`,
    };
  },
});

export const checkParkingAvailability = itsmTool({
  name: "check_parking_availability",
  kind: "read",
  description: "List the available parking spaces, in one zone (code or name) or all.",
  args: { zone_code: optional(str(PARKING_ZONE), { emptyToNone: true }) },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    let zcode: string | null = null;
    if (p.zone_code != null) {
      const [code, err] = resolveFacility("zone", p.zone_code, db);
      if (err) return err;
      zcode = code;
    }
    const spaces = dict(dict(db, "facilities"), "parking");
    const avail = Object.entries(spaces)
      .filter(([, s]) => (zcode === null || s.zone_code === zcode) && s.status === "available")
      .map(([sid, s]) => ({
        parking_space_id: sid,
        zone_code: s.zone_code ?? null,
        level: s.level ?? null,
        covered: get(s, "covered", false),
      }));
    return {
      status: "success",
      zone_code: zcode,
      available_spaces: avail,
      message: `${avail.length} space(s)` + (zcode === null ? " (all zones)" : ""),
    };
  },
});

export const submitParkingAssignment = itsmTool({
  name: "submit_parking_assignment",
  kind: "write",
  description: "Assign an available parking space (180 days after a previous assignment).",
  args: { employee_id: employeeId(), parking_space_id: parkingSpaceId() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const emp = employee(db, p.employee_id);
    if (truthy(emp) && truthy(emp!.assigned_parking)) {
      return {
        status: "error",
        error_type: "already_assigned",
        message: `Employee already has parking ${pyStr(emp!.assigned_parking)}. Release it first.`,
      };
    }
    const last = truthy(emp) ? emp!.last_parking_assignment_date : emp;
    if (truthy(last)) {
      const e = cooldown(db, last, 180, "Parking");
      if (e) return e;
    }
    const space = at(dict(dict(db, "facilities"), "parking"), p.parking_space_id);
    if (!truthy(space)) {
      return { status: "error", error_type: "not_found", message: "Space not found" };
    }
    if (space!.status !== "available") {
      return { status: "error", error_type: "not_available", message: "Not available" };
    }
    Object.assign(space!, { status: "assigned", assigned_employee_id: p.employee_id });
    if (emp !== undefined && emp !== null) {
      emp.assigned_parking = p.parking_space_id;
      emp.last_parking_assignment_date = currentDate(db);
    }
    return {
      status: "success",
      request_id: requestIdFor({
        employee_id: p.employee_id,
        parking_space_id: p.parking_space_id,
        request_type: "parking_assignment",
        created_date: currentDate(db),
      }, "FAC"),
      parking_space_id: p.parking_space_id,
      message: `Assigned ${p.parking_space_id}`,
    };
  },
});

export const submitWaitlist = itsmTool({
  name: "submit_waitlist",
  kind: "write",
  description: "Put the employee on the desk or parking waitlist when nothing is available.",
  args: {
    employee_id: employeeId(),
    resource_type: choice(WAITLIST_RESOURCES),
    zone_or_building: str({
      min: 1,
      max: 20,
      description: "Building code for desks, zone code for parking",
      examples: ["BLD3", "PZA"],
    }),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const wl: Rec[] = setDefault(setDefault(db, "waitlists", {}), p.resource_type, []);
    const existing = wl.find((w) =>
      w.employee_id === p.employee_id && w.zone_or_building === p.zone_or_building
    );
    if (existing) {
      return {
        status: "error",
        error_type: "already_waitlisted",
        message: `Already on waitlist position ${pyStr(existing.position)}`,
      };
    }
    const pos = wl.length + 1;
    const wid = `WL-${p.resource_type.slice(0, 3).toUpperCase()}-${zfill(pos, 4)}`;
    wl.push({
      waitlist_id: wid,
      employee_id: p.employee_id,
      resource_type: p.resource_type,
      zone_or_building: p.zone_or_building,
      position: pos,
      added_date: currentDate(db),
    });
    return {
      status: "success",
      waitlist_id: wid,
      resource_type: p.resource_type,
      position: pos,
      zone_or_building: p.zone_or_building,
      message: `Placed on ${p.resource_type} waitlist at position ${pos}`,
    };
  },
});

export const checkErgonomicAssessment = itsmTool({
  name: "check_ergonomic_assessment",
  kind: "read",
  description: "Check that the employee has a completed ergonomic assessment.",
  args: { employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const a = emp!.ergonomic_assessment;
    if (!truthy(a) || a.status !== "completed") {
      return {
        status: "error",
        error_type: "assessment_required",
        message: "No completed ergonomic assessment. Complete one at occupational health portal.",
      };
    }
    return {
      status: "success",
      employee_id: p.employee_id,
      assessment_date: a.completed_date ?? null,
      message: "Assessment on file",
    };
  },
});

export const submitEquipmentRequest = itsmTool({
  name: "submit_equipment_request",
  kind: "write",
  description: "Request ergonomic equipment delivered to a building and floor.",
  args: {
    employee_id: employeeId(),
    equipment_type: choice(EQUIPMENT_TYPES),
    delivery_building: buildingCode(),
    delivery_floor: floorCode(),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const [bcode, err] = resolveFacility("building", p.delivery_building, db);
    if (err) return err;
    const record: Rec = {
      request_id: null,
      employee_id: p.employee_id,
      equipment_type: p.equipment_type,
      delivery_building: bcode,
      delivery_floor: p.delivery_floor,
      status: "submitted",
      created_date: currentDate(db),
    };
    const rid = requestIdFor(record, "FAC");
    record.request_id = rid;
    setDefault(db, "requests", {})[rid] = record;
    return {
      status: "success",
      request_id: rid,
      equipment_type: p.equipment_type,
      delivery_building: bcode,
      message: `Equipment request: ${rid}`,
    };
  },
});

function overlaps(b: Rec, day: string, start: string, end: string): boolean {
  return b.date === day &&
    !(end <= String(get(b, "start_time", "")) || start >= String(get(b, "end_time", "")));
}

function equipmentList(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === "string") {
    const s = v.trim().toLowerCase();
    if (["", ".", "none", "null", "n/a", "na"].includes(s)) return null;
    return [v];
  }
  return v;
}

export const checkRoomAvailability = itsmTool({
  name: "check_room_availability",
  kind: "read",
  description: "List the conference rooms free at a time, with the capacity and equipment asked.",
  args: {
    building_code: buildingCode(),
    floor_code: optional(str({ pattern: FLOOR_CODE }), {
      emptyToNone: true,
      doc: {
        description:
          "Specific floor code (e.g. 'FL2'). **Omit this field** to search all floors — do not pass an empty string or null.",
      },
    }),
    date: date(),
    start_time: time(),
    end_time: time(),
    min_capacity: int({ gt: 0, le: 50 }),
    equipment_required: optional(list(choice(ROOM_EQUIPMENT)), { before: equipmentList }),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const [bcode, err] = resolveFacility("building", p.building_code, db);
    if (err) return err;
    const rooms = dict(dict(db, "facilities"), "conference_rooms");
    const required = p.equipment_required ?? [];
    const avail = [];
    for (const [rc, rm] of Object.entries(rooms)) {
      if (rm.building_code !== bcode) continue;
      if (p.floor_code != null && rm.floor_code !== p.floor_code) continue;
      if ((get(rm, "capacity", 0) as unknown as number) < p.min_capacity) continue;
      const equipment = get(rm, "equipment", []) as unknown as unknown[];
      if (required.length && !required.every((r) => equipment.includes(r))) continue;
      const bookings = get(rm, "bookings", []) as unknown as Rec[];
      if (bookings.some((b) => overlaps(b, p.date, p.start_time, p.end_time))) continue;
      avail.push({
        room_code: rc,
        floor_code: rm.floor_code ?? null,
        capacity: rm.capacity,
        equipment,
      });
    }
    return { status: "success", available_rooms: avail, message: `${avail.length} room(s)` };
  },
});

export const submitRoomBooking = itsmTool({
  name: "submit_room_booking",
  kind: "write",
  description: "Book a conference room for a date and time.",
  args: {
    employee_id: employeeId(),
    room_code: roomCode(),
    date: date(),
    start_time: time(),
    end_time: time(),
    attendee_count: int({ gt: 0, le: 50 }),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const room = at(dict(dict(db, "facilities"), "conference_rooms"), p.room_code);
    if (!truthy(room)) {
      return { status: "error", error_type: "not_found", message: `Room ${p.room_code} not found` };
    }
    const capacity = get(room, "capacity", 0) as unknown as number;
    if (p.attendee_count > capacity) {
      return {
        status: "error",
        error_type: "over_capacity",
        message: `Attendee count ${p.attendee_count} exceeds room capacity ${
          pyStr(room!.capacity ?? null)
        }`,
      };
    }
    for (const b of (get(room, "bookings", []) as unknown as Rec[])) {
      if (overlaps(b, p.date, p.start_time, p.end_time)) {
        return {
          status: "error",
          error_type: "room_conflict",
          message: `Booked ${p.date} ${pyStr(b.start_time)}-${pyStr(b.end_time)}`,
        };
      }
    }
    const booking: Rec = {
      booking_id: null,
      date: p.date,
      start_time: p.start_time,
      end_time: p.end_time,
      employee_id: p.employee_id,
      attendee_count: p.attendee_count,
    };
    const rid = requestIdFor(booking, "FAC");
    booking.booking_id = rid;
    setDefault(room!, "bookings", []).push(booking);
    return {
      status: "success",
      request_id: rid,
      room_code: p.room_code,
      date: p.date,
      start_time: p.start_time,
      end_time: p.end_time,
      message: `Booked ${p.room_code}. ID: ${rid}`,
    };
  },
});

export const sendCalendarInvite = itsmTool({
  name: "send_calendar_invite",
  kind: "write",
  description: "Send the calendar invite for a room booking.",
  args: {
    request_id: requestId(),
    employee_id: employeeId(),
    room_code: roomCode(),
    date: date(),
    start_time: time(),
    end_time: time(),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const calId = `CAL-${p.request_id.slice(-6)}`;
    setDefault(db, "calendar_events", {})[calId] = {
      calendar_event_id: calId,
      request_id: p.request_id,
      employee_id: p.employee_id,
      room_code: p.room_code,
      date: p.date,
      start_time: p.start_time,
      end_time: p.end_time,
      created_date: currentDate(db),
    };
    return {
      status: "success",
      calendar_event_id: calId,
      room_code: p.room_code,
      date: p.date,
      message: `Calendar invite sent. Event: ${calId}`,
    };
  },
});

export const markResolved = itsmTool({
  name: "mark_resolved",
  kind: "write",
  description: "Log a call resolved by troubleshooting, without a ticket.",
  args: {
    employee_id: employeeId(),
    flow_id: choice(INTERACTION_FLOWS),
    resolution_type: choice(RESOLUTION_TYPES),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    if (!Object.hasOwn(dict(db, "employees"), p.employee_id)) {
      return employeeNotFound(p.employee_id);
    }
    const interactions = setDefault(db, "interactions", {} as Rec);
    const iid = `INT-${zfill(Object.keys(interactions).length + 1, 6)}`;
    interactions[iid] = {
      interaction_id: iid,
      employee_id: p.employee_id,
      flow_id: p.flow_id,
      resolution_type: p.resolution_type,
      logged_date: currentDate(db),
    };
    return {
      status: "success",
      interaction_id: iid,
      flow_id: p.flow_id,
      resolution_type: p.resolution_type,
      message: `Interaction logged: ${iid}`,
    };
  },
});
