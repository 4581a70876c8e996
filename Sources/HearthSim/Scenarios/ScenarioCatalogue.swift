import HearthGeo
import HearthTrace

/// Every scenario of impact-physics.md §5.2 as a named generator, plus
/// walking with the vehicle gate off. Each scenario trace runs 80 s with the
/// jolt at t = 40 s (C16: a second crash at 90 s, 130 s long; N1 and N2 are
/// 30 and 10 minutes of driving). The numbers of the recipes are the
/// defaults; the variant draws of §5.3 (pulse 60–120 ms, airbag step
/// 2.5–10 hPa, spin 3.6–8 rad/s, orientation, noise) come from the seed
/// where the recipe leaves them free.
public enum ScenarioCatalogue {
  /// When the jolt happens in every scenario, seconds after the start.
  public static let joltSeconds = 40.0
  static let g = 9.806_65

  /// Every scenario, in catalogue order.
  public static let all: [Scenario] = [
    c1, c3, c4, c4Late, c5, c7, c9, c10, c11, c13, c14, c15, c16, c18,
    n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11, n12, n13, n14, n16, w1,
  ]

  /// The scenario with this id ("C1", "N10", …), if any.
  public static func scenario(_ id: String) -> Scenario? { all.first { $0.id == id } }

  // MARK: Building blocks

  /// A drive at `speed` that crashes with its pulse peaking at the jolt (a
  /// loose phone's own impact is the jolt, after the pulse and its flight),
  /// then comes to rest `restSeconds` after the pulse and stays there.
  static func crashDrive(
    speed: Double, crash: Crash, afterSpeed: Double = 0, restSeconds: Double = 1,
    placement: Placement = .mounted,
    road: RoadType = .urban, length: Double = 80, gps: Bool = true
  ) -> (DrivePlan, [ScenarioLabel.CrashPulse]) {
    let pulseStart =
      crash.loosePhone ? joltSeconds - crash.pulseSeconds - 0.15 : joltSeconds - crash.pulseSeconds / 2
    let afterPulse = max(0, speed - crash.deltaVMetersPerSecond)
    var segments = [
      MotionSegment(durationSeconds: pulseStart, endSpeedMetersPerSecond: speed, road: road),
      MotionSegment(durationSeconds: crash.pulseSeconds, endSpeedMetersPerSecond: afterPulse, road: road),
    ]
    let used = pulseStart + crash.pulseSeconds
    segments.append(
      MotionSegment(durationSeconds: restSeconds, endSpeedMetersPerSecond: afterSpeed, road: road))
    segments.append(
      MotionSegment(
        durationSeconds: max(1, length - used - restSeconds), endSpeedMetersPerSecond: afterSpeed, road: road)
    )
    let plan = DrivePlan(
      segments: segments, events: [TimedEvent(atSeconds: pulseStart, event: .crash(crash))],
      placement: placement,
      initialSpeedMetersPerSecond: speed, gpsAvailable: gps)
    let pulse = ScenarioLabel.CrashPulse(
      startSeconds: pulseStart, endSeconds: pulseStart + crash.pulseSeconds,
      peakAcceleration: crash.peakAcceleration)
    return (plan, [pulse])
  }

  /// ΔV of a half-sine pulse with peak `peakG` (g) over `seconds`.
  static func deltaV(peakG: Double, seconds: Double) -> Double { 2 * peakG * g * seconds / Double.pi }

  /// Cruise at `speed` for `length` seconds on `road` with events.
  static func cruise(
    speed: Double, length: Double = 80, road: RoadType = .urban, events: [TimedEvent] = [],
    placement: Placement = .mounted
  ) -> DrivePlan {
    DrivePlan(
      segments: [MotionSegment(durationSeconds: length, endSpeedMetersPerSecond: speed, road: road)],
      events: events,
      placement: placement, initialSpeedMetersPerSecond: speed)
  }

  // MARK: Crashes

  static let c1 = Scenario(
    id: "C1", name: "Frontal 50 km/h, mounted phone, airbags",
    summary: "Urban crash into a stationary car, dual frontal airbags, closed cabin.", expected: .report,
    decidingGate: "pressure"
  ) { draws in
    let pulse = draws.uniform(0.06, 0.12)
    let airbag = draws.uniform(2.5, 10)
    let crash = Crash(
      kind: .frontal, deltaVMetersPerSecond: 13.9, pulseSeconds: pulse, airbagHPa: airbag,
      airbagDecaySeconds: 1,
      airbagDelaySeconds: pulse / 2 + 0.2, mountWhipRadiansPerSecond: 1.5)
    let (plan, pulses) = crashDrive(speed: 13.9, crash: crash)
    return ScenarioVariant(
      plan: plan, joltSeconds: [joltSeconds], crashPulses: pulses,
      parameters: ["pulseSeconds": pulse, "airbagHPa": airbag])
  }

  static let c3 = Scenario(
    id: "C3", name: "T-bone side impact at 40 km/h, car spins",
    summary: "Struck on the side, yaws; curtain airbag too small to count.", expected: .report,
    decidingGate: "spin"
  ) { draws in
    let pulse = draws.uniform(0.06, 0.09)
    let spin = draws.uniform(3.6, 8)
    let crash = Crash(
      kind: .side, deltaVMetersPerSecond: deltaV(peakG: 15, seconds: pulse), pulseSeconds: pulse,
      spinRadiansPerSecond: spin, airbagHPa: 1.5, airbagDelaySeconds: pulse / 2 + 0.2,
      mountWhipRadiansPerSecond: 0)
    let (plan, pulses) = crashDrive(speed: 11.1, crash: crash, restSeconds: 2)
    return ScenarioVariant(
      plan: plan, joltSeconds: [joltSeconds], crashPulses: pulses,
      parameters: ["pulseSeconds": pulse, "spinRadiansPerSecond": spin])
  }

  static func rollover(id: String, restSeconds: Double, expected: ExpectedVerdict, name: String) -> Scenario {
    Scenario(
      id: id, name: name,
      summary:
        "Trip at 70 km/h, two rolls, roof impacts; the car comes to rest \(restSeconds) s after the jolt.",
      expected: expected, decidingGate: expected == .report ? "spin" : "stop (rest after 5 s)"
    ) { draws in
      let spin = draws.uniform(5, 7)
      let crash = Crash(
        kind: .rollover, deltaVMetersPerSecond: 0, pulseSeconds: 0.08, spinRadiansPerSecond: spin,
        airbagHPa: 1.5,
        mountWhipRadiansPerSecond: 0)
      let pulseStart = joltSeconds - 0.04
      let plan = DrivePlan(
        segments: [
          MotionSegment(durationSeconds: pulseStart, endSpeedMetersPerSecond: 19.4, road: .highway),
          MotionSegment(durationSeconds: restSeconds, endSpeedMetersPerSecond: 0, road: .rough),
          MotionSegment(
            durationSeconds: 80 - pulseStart - restSeconds, endSpeedMetersPerSecond: 0, road: .rough),
        ], events: [TimedEvent(atSeconds: pulseStart, event: .crash(crash))],
        initialSpeedMetersPerSecond: 19.4)
      let pulses = [
        ScenarioLabel.CrashPulse(
          startSeconds: pulseStart, endSeconds: pulseStart + 0.08, peakAcceleration: 6 * g)
      ]
      return ScenarioVariant(
        plan: plan, joltSeconds: [joltSeconds], crashPulses: pulses,
        parameters: ["spinRadiansPerSecond": spin, "restSeconds": restSeconds])
    }
  }

  static let c4 = rollover(
    id: "C4", restSeconds: 4, expected: .report, name: "Rollover at 70 km/h, at rest within 5 s")
  static let c4Late = rollover(
    id: "C4b", restSeconds: 8.5, expected: .silent,
    name: "Rollover sliding to rest only after 8.5 s, 6.6 s after its last impact (D5 boundary)")

  static let c5 = Scenario(
    id: "C5", name: "Loose phone on the seat, frontal 50 km/h, airbags",
    summary: "The phone slides, flies 0.15 s and hits the dash; the airbag fires before its impact.",
    expected: .report, decidingGate: "pressure (spin vetoed by free fall)"
  ) { draws in
    let pulse = draws.uniform(0.08, 0.12)
    let airbag = draws.uniform(2.5, 10)
    let crash = Crash(
      kind: .frontal, deltaVMetersPerSecond: 13.9, pulseSeconds: pulse, airbagHPa: airbag,
      airbagDecaySeconds: 1,
      airbagDelaySeconds: pulse + 0.15 - 0.2, mountWhipRadiansPerSecond: 0, loosePhone: true)
    let (plan, pulses) = crashDrive(speed: 13.9, crash: crash, placement: .seat)
    return ScenarioVariant(
      plan: plan, joltSeconds: [joltSeconds], crashPulses: pulses,
      parameters: ["pulseSeconds": pulse, "airbagHPa": airbag])
  }

  static let c7 = Scenario(
    id: "C7", name: "Frontal 40 km/h in a GPS-denied canyon",
    summary: "No fix for the whole trace: moving and stopped come from vibration (stalled engine after).",
    expected: .report, decidingGate: "pressure; vibration stop"
  ) { draws in
    let airbag = draws.uniform(2.5, 10)
    let crash = Crash(
      kind: .frontal, deltaVMetersPerSecond: deltaV(peakG: 12, seconds: 0.1), pulseSeconds: 0.1,
      airbagHPa: airbag,
      airbagDelaySeconds: 0.25, mountWhipRadiansPerSecond: 1.2)
    let (plan, pulses) = crashDrive(speed: 11.1, crash: crash, gps: false)
    return ScenarioVariant(
      plan: plan, joltSeconds: [joltSeconds], crashPulses: pulses, parameters: ["airbagHPa": airbag])
  }

  static let c9 = Scenario(
    id: "C9", name: "Sideswipe, the car keeps going",
    summary: "Glancing hit with a spin; the driver carries on at 10 m/s.", expected: .silent,
    decidingGate: "stop"
  ) { _ in
    let crash = Crash(
      kind: .side, deltaVMetersPerSecond: deltaV(peakG: 6, seconds: 0.05), pulseSeconds: 0.05,
      spinRadiansPerSecond: 3.8,
      mountWhipRadiansPerSecond: 0)
    let (plan, pulses) = crashDrive(speed: 14, crash: crash, afterSpeed: 10, restSeconds: 2, gps: true)
    return ScenarioVariant(plan: plan, joltSeconds: [joltSeconds], crashPulses: pulses)
  }

  static func thresholdPressure(id: String, hPa: Double, expected: ExpectedVerdict) -> Scenario {
    Scenario(
      id: id, name: "Frontal 30 km/h, airbag in a leaky cabin: +\(hPa) hPa",
      summary:
        "9 g for 110 ms, mount whip 1.2 rad/s; the pressure step sits just \(hPa < 2 ? "below" : "above") 2 hPa.",
      expected: expected, decidingGate: "pressure"
    ) { _ in
      let crash = Crash(
        kind: .frontal, deltaVMetersPerSecond: deltaV(peakG: 9, seconds: 0.11), pulseSeconds: 0.11,
        airbagHPa: hPa,
        airbagDecaySeconds: 0.6, airbagDelaySeconds: 0.25, mountWhipRadiansPerSecond: 1.2)
      let (plan, pulses) = crashDrive(speed: 8.3, crash: crash)
      return ScenarioVariant(
        plan: plan, joltSeconds: [joltSeconds], crashPulses: pulses, parameters: ["airbagHPa": hPa])
    }
  }

  static let c10 = thresholdPressure(id: "C10", hPa: 1.8, expected: .silent)
  static let c11 = thresholdPressure(id: "C11", hPa: 2.3, expected: .report)

  static let c13 = Scenario(
    id: "C13", name: "Corroboration 8 s early",
    summary:
      "Roundabout, the phone flipped by a passenger and a hill's pressure rise, all 8 s before a 6 g jolt and a stop.",
    expected: .silent, decidingGate: "windows exclude t − 8 s"
  ) { _ in
    let crash = Crash(
      kind: .frontal, deltaVMetersPerSecond: deltaV(peakG: 6, seconds: 0.08), pulseSeconds: 0.08,
      mountWhipRadiansPerSecond: 0)
    var (plan, pulses) = crashDrive(speed: 10, crash: crash)
    plan.segments[0] = MotionSegment(
      durationSeconds: plan.segments[0].durationSeconds, endSpeedMetersPerSecond: 10)
    plan.segments.insert(
      MotionSegment(durationSeconds: 6, endSpeedMetersPerSecond: 10, yawRateRadiansPerSecond: 0.7), at: 0)
    plan.segments[1].durationSeconds -= 6
    plan.events += [
      TimedEvent(
        atSeconds: joltSeconds - 8.5, event: .phoneHandled(durationSeconds: 1, spinRadiansPerSecond: 4)),
      TimedEvent(
        atSeconds: joltSeconds - 10,
        event: .pressureStep(hectopascals: 2.5, rampSeconds: 2, durationSeconds: 60)),
    ]
    return ScenarioVariant(plan: plan, joltSeconds: [joltSeconds], crashPulses: pulses)
  }

  static func rearEnded(id: String, peakG: Double, expected: ExpectedVerdict) -> Scenario {
    Scenario(
      id: id, name: "Rear-ended at 30 km/h by a faster car: \(peakG) g",
      summary: "Forward pulse for 120 ms, the mount pivots (3.7 rad/s), the driver stops within 3 s.",
      expected: expected, decidingGate: expected == .silent ? "jolt (below 4 g)" : "spin"
    ) { _ in
      let crash = Crash(
        kind: .rear, deltaVMetersPerSecond: -deltaV(peakG: peakG, seconds: 0.12), pulseSeconds: 0.12,
        mountWhipRadiansPerSecond: 3.7)
      let (plan, pulses) = crashDrive(speed: 8.3, crash: crash, restSeconds: 3)
      return ScenarioVariant(
        plan: plan, joltSeconds: [joltSeconds], crashPulses: pulses, parameters: ["peakG": peakG])
    }
  }

  static let c14 = rearEnded(id: "C14", peakG: 3.8, expected: .silent)
  static let c15 = rearEnded(id: "C15", peakG: 4.3, expected: .report)

  static let c16 = Scenario(
    id: "C16", name: "A second qualifying crash within 60 s",
    summary: "C3, then the driver restarts at +25 s and crashes again (C1-like) at +50 s.",
    expected: .reportOnce,
    decidingGate: "suppression"
  ) { draws in
    let spin = draws.uniform(3.6, 8)
    let side = Crash(
      kind: .side, deltaVMetersPerSecond: deltaV(peakG: 15, seconds: 0.07), pulseSeconds: 0.07,
      spinRadiansPerSecond: spin, mountWhipRadiansPerSecond: 0)
    let frontal = Crash(
      kind: .frontal, deltaVMetersPerSecond: 9, pulseSeconds: 0.1, airbagHPa: 5, airbagDelaySeconds: 0.25)
    let first = joltSeconds - 0.035
    let second = joltSeconds + 50 - 0.05
    let plan = DrivePlan(
      segments: [
        MotionSegment(durationSeconds: first, endSpeedMetersPerSecond: 11.1),
        MotionSegment(durationSeconds: 2, endSpeedMetersPerSecond: 0),
        MotionSegment(durationSeconds: 23, endSpeedMetersPerSecond: 0),
        MotionSegment(durationSeconds: 5, endSpeedMetersPerSecond: 9),
        MotionSegment(durationSeconds: second - first - 30, endSpeedMetersPerSecond: 9),
        MotionSegment(durationSeconds: 0.1, endSpeedMetersPerSecond: 0),
        MotionSegment(durationSeconds: 40, endSpeedMetersPerSecond: 0),
      ],
      events: [
        TimedEvent(atSeconds: first, event: .crash(side)),
        TimedEvent(atSeconds: second, event: .crash(frontal)),
      ],
      initialSpeedMetersPerSecond: 11.1)
    let pulses = [
      ScenarioLabel.CrashPulse(
        startSeconds: first, endSeconds: first + 0.07, peakAcceleration: side.peakAcceleration),
      ScenarioLabel.CrashPulse(
        startSeconds: second, endSeconds: second + 0.1, peakAcceleration: frontal.peakAcceleration),
    ]
    return ScenarioVariant(
      plan: plan, joltSeconds: [joltSeconds, joltSeconds + 50], crashPulses: pulses,
      parameters: ["spinRadiansPerSecond": spin])
  }

  static let c18 = Scenario(
    id: "C18", name: "Rear-ended while stopped at a red light",
    summary:
      "Stopped 20 s, hit at 50 km/h: pushed 1 s at 3 m/s, spins, airbags. Not moving before: out of design.",
    expected: .silent, decidingGate: "moving-before"
  ) { _ in
    let crash = Crash(
      kind: .rear, deltaVMetersPerSecond: -3, pulseSeconds: 0.1, airbagHPa: 3, mountWhipRadiansPerSecond: 3.6)
    let pulseStart = joltSeconds - 0.05
    let plan = DrivePlan(
      segments: [
        MotionSegment(durationSeconds: 15, endSpeedMetersPerSecond: 0),
        MotionSegment(durationSeconds: pulseStart - 15, endSpeedMetersPerSecond: 0),
        MotionSegment(durationSeconds: 0.1, endSpeedMetersPerSecond: 3),
        MotionSegment(durationSeconds: 1, endSpeedMetersPerSecond: 3),
        MotionSegment(durationSeconds: 0.5, endSpeedMetersPerSecond: 0),
        MotionSegment(durationSeconds: 80 - pulseStart - 1.6, endSpeedMetersPerSecond: 0),
      ], events: [TimedEvent(atSeconds: pulseStart, event: .crash(crash))], initialSpeedMetersPerSecond: 8)
    return ScenarioVariant(
      plan: plan, joltSeconds: [joltSeconds],
      crashPulses: [
        ScenarioLabel.CrashPulse(
          startSeconds: pulseStart, endSeconds: pulseStart + 0.1, peakAcceleration: crash.peakAcceleration)
      ])
  }

  // MARK: Things that must stay silent

  static let n1 = Scenario(
    id: "N1", name: "Highway cruise, 30 min",
    summary: "110 km/h on a smooth road with lane changes and ±5 m terrain.",
    expected: .silent, decidingGate: "jolt"
  ) { draws in
    var segments: [MotionSegment] = []
    var total = 0.0
    while total < 1800 {
      let length = draws.uniform(20, 90)
      let lane = draws.chance(0.3) ? draws.uniform(-0.1, 0.1) : 0
      segments.append(
        MotionSegment(
          durationSeconds: length, endSpeedMetersPerSecond: 30.6 + draws.uniform(-1, 1),
          yawRateRadiansPerSecond: lane,
          grade: draws.uniform(-0.005, 0.005), road: .highway))
      total += length
    }
    return ScenarioVariant(
      plan: DrivePlan(segments: segments, initialSpeedMetersPerSecond: 30.6), joltSeconds: [])
  }

  static let n2 = Scenario(
    id: "N2", name: "Rough road and cobbles, 10 min", summary: "30 km/h, 1.2–2.0 m/s² vibration.",
    expected: .silent,
    decidingGate: "jolt"
  ) { draws in
    var segments: [MotionSegment] = []
    var total = 0.0
    while total < 600 {
      let length = draws.uniform(20, 60)
      segments.append(
        MotionSegment(
          durationSeconds: length, endSpeedMetersPerSecond: 8.3, road: draws.chance(0.5) ? .rough : .cobbles))
      total += length
    }
    return ScenarioVariant(
      plan: DrivePlan(segments: segments, initialSpeedMetersPerSecond: 8.3), joltSeconds: [])
  }

  static let n3 = Scenario(
    id: "N3", name: "Pothole, mounted phone", summary: "50 km/h, one deep pothole; speed unchanged.",
    expected: .silent,
    decidingGate: "jolt and stop"
  ) { _ in
    ScenarioVariant(
      plan: cruise(
        speed: 13.9,
        events: [TimedEvent(atSeconds: joltSeconds, event: .pothole(peakG: 2.5, looseRattle: false))]),
      joltSeconds: [joltSeconds])
  }

  static let n4 = Scenario(
    id: "N4", name: "Pothole, loose phone rattling in a cupholder",
    summary: "9 g and 6 g spikes 60 ms apart, a 3–5 rad/s burst; speed unchanged.", expected: .silent,
    decidingGate: "stop"
  ) { _ in
    ScenarioVariant(
      plan: cruise(
        speed: 13.9,
        events: [TimedEvent(atSeconds: joltSeconds, event: .pothole(peakG: 2.5, looseRattle: true))],
        placement: .cupholder), joltSeconds: [joltSeconds])
  }

  static func bumpPlan(stopAfter: Bool) -> DrivePlan {
    var segments = [
      MotionSegment(durationSeconds: joltSeconds - 1, endSpeedMetersPerSecond: 8.3),
      MotionSegment(durationSeconds: 1, endSpeedMetersPerSecond: 5),
      MotionSegment(durationSeconds: 1, endSpeedMetersPerSecond: 7),
    ]
    if stopAfter {
      segments += [
        MotionSegment(durationSeconds: 2.9, endSpeedMetersPerSecond: 0),
        MotionSegment(durationSeconds: 40, endSpeedMetersPerSecond: 0),
      ]
    } else {
      segments.append(MotionSegment(durationSeconds: 40, endSpeedMetersPerSecond: 8))
    }
    return DrivePlan(
      segments: segments, events: [TimedEvent(atSeconds: joltSeconds, event: .speedBump(peakG: 1.2))],
      initialSpeedMetersPerSecond: 8.3)
  }

  static let n5 = Scenario(
    id: "N5", name: "Speed bump at 30 km/h", summary: "Front then rear axle, 1.2 g pulses, body heave.",
    expected: .silent,
    decidingGate: "jolt"
  ) { _ in ScenarioVariant(plan: bumpPlan(stopAfter: false), joltSeconds: [joltSeconds]) }

  static let n6 = Scenario(
    id: "N6", name: "Speed bump, then a stop sign 3 s later",
    summary: "As N5, then a routine stop held 40 s.",
    expected: .silent, decidingGate: "jolt"
  ) { _ in ScenarioVariant(plan: bumpPlan(stopAfter: true), joltSeconds: [joltSeconds]) }

  static let n7 = Scenario(
    id: "N7", name: "Door slammed before driving",
    summary: "Stationary, engine idling; the phone is in the door pocket: a clipped spike and +2.5 hPa.",
    expected: .silent, decidingGate: "moving-before"
  ) { _ in
    var plan = cruise(
      speed: 0,
      events: [TimedEvent(atSeconds: joltSeconds, event: .doorSlam(pressureHPa: 2.5, phoneInDoor: true))])
    plan.stallAfterCrash = false
    return ScenarioVariant(plan: plan, joltSeconds: [joltSeconds])
  }

  static let n8 = Scenario(
    id: "N8", name: "Drop-off: stop, then a door slam 4 s later",
    summary: "40 km/h to rest at 0.3 g, reaching 0 four seconds before the slam.", expected: .silent,
    decidingGate: "moving at the jolt"
  ) { _ in
    let plan = DrivePlan(
      segments: [
        MotionSegment(durationSeconds: joltSeconds - 6, endSpeedMetersPerSecond: 11),
        MotionSegment(durationSeconds: 2, endSpeedMetersPerSecond: 0),
        MotionSegment(durationSeconds: 44, endSpeedMetersPerSecond: 0),
      ], events: [TimedEvent(atSeconds: joltSeconds, event: .doorSlam(pressureHPa: 2.5, phoneInDoor: true))],
      initialSpeedMetersPerSecond: 11)
    return ScenarioVariant(plan: plan, joltSeconds: [joltSeconds])
  }

  static let n9 = Scenario(
    id: "N9", name: "Phone dropped into the footwell while cruising",
    summary: "60 km/h; the phone slips from a hand, falls 0.6 m tumbling, hits the floor; speed unchanged.",
    expected: .silent, decidingGate: "stop"
  ) { draws in
    let spin = draws.uniform(8, 15)
    let fall = (2 * 0.6 / g).squareRoot()
    return ScenarioVariant(
      plan: cruise(
        speed: 16.7,
        events: [
          TimedEvent(
            atSeconds: joltSeconds - fall, event: .phoneDrop(heightMeters: 0.6, spinRadiansPerSecond: spin))
        ],
        placement: .seat), joltSeconds: [joltSeconds], parameters: ["spinRadiansPerSecond": spin])
  }

  static let n10 = Scenario(
    id: "N10", name: "Phone slides off the seat during a hard stop at a red light",
    summary:
      "0.7 g braking from 50 km/h; 0.6 s in the phone falls 0.4 m (0.29 s) tumbling; the car stops 1.1 s later.",
    expected: .silent, decidingGate: "free-fall veto"
  ) { _ in
    let fall = (2 * 0.4 / g).squareRoot()
    let plan = DrivePlan(
      segments: [
        MotionSegment(durationSeconds: joltSeconds - 0.9, endSpeedMetersPerSecond: 13.9),
        MotionSegment(durationSeconds: 2.0, endSpeedMetersPerSecond: 0),
        MotionSegment(durationSeconds: 42, endSpeedMetersPerSecond: 0),
      ],
      events: [
        TimedEvent(
          atSeconds: joltSeconds - fall, event: .phoneDrop(heightMeters: 0.4, spinRadiansPerSecond: 9))
      ],
      placement: .seat, initialSpeedMetersPerSecond: 13.9)
    return ScenarioVariant(plan: plan, joltSeconds: [joltSeconds])
  }

  static let n11 = Scenario(
    id: "N11", name: "Hard braking at a red light, a heavy bag thumps into the seatback",
    summary: "Mounted phone; 0.8 g for 2.2 s; a 2 g, 30 ms thump through the structure; stop held 30 s.",
    expected: .silent, decidingGate: "jolt"
  ) { draws in
    let thump = draws.uniform(1.5, 2.5)
    let plan = DrivePlan(
      segments: [
        MotionSegment(durationSeconds: joltSeconds - 1.5, endSpeedMetersPerSecond: 17.3),
        MotionSegment(durationSeconds: 2.2, endSpeedMetersPerSecond: 0),
        MotionSegment(durationSeconds: 40, endSpeedMetersPerSecond: 0),
      ], events: [TimedEvent(atSeconds: joltSeconds, event: .loadShift(peakG: thump))],
      initialSpeedMetersPerSecond: 17.3)
    return ScenarioVariant(plan: plan, joltSeconds: [joltSeconds], parameters: ["thumpG": thump])
  }

  static let n12 = Scenario(
    id: "N12", name: "ABS emergency stop from 100 km/h",
    summary: "1.0 g for 2.8 s, nothing hit; −0.8 hPa as the draught stops.",
    expected: .silent, decidingGate: "jolt"
  ) { _ in
    let plan = DrivePlan(
      segments: [
        MotionSegment(durationSeconds: joltSeconds - 1.4, endSpeedMetersPerSecond: 27.8, road: .highway),
        MotionSegment(durationSeconds: 2.8, endSpeedMetersPerSecond: 0, road: .highway),
        MotionSegment(durationSeconds: 40, endSpeedMetersPerSecond: 0, road: .highway),
      ],
      events: [
        TimedEvent(
          atSeconds: joltSeconds,
          event: .pressureStep(hectopascals: -0.8, rampSeconds: 1.5, durationSeconds: 40))
      ],
      initialSpeedMetersPerSecond: 27.8)
    return ScenarioVariant(plan: plan, joltSeconds: [joltSeconds])
  }

  static let n13 = Scenario(
    id: "N13", name: "Roundabout at 30 km/h", summary: "One and a half laps: 0.7 rad/s of yaw for 13.5 s.",
    expected: .silent,
    decidingGate: "jolt"
  ) { _ in
    let plan = DrivePlan(
      segments: [
        MotionSegment(durationSeconds: joltSeconds - 5, endSpeedMetersPerSecond: 8.3),
        MotionSegment(durationSeconds: 13.5, endSpeedMetersPerSecond: 8.3, yawRateRadiansPerSecond: 0.7),
        MotionSegment(durationSeconds: 31.5, endSpeedMetersPerSecond: 10),
      ], initialSpeedMetersPerSecond: 8.3)
    return ScenarioVariant(plan: plan, joltSeconds: [])
  }

  static let n14 = Scenario(
    id: "N14", name: "Long hill descent, then a stop at the bottom",
    summary: "10 % down at 25 m/s for 60 s (+18 hPa), then a routine 0.3 g stop.", expected: .silent,
    decidingGate: "jolt"
  ) { _ in
    let plan = DrivePlan(
      segments: [
        MotionSegment(durationSeconds: 10, endSpeedMetersPerSecond: 25),
        MotionSegment(durationSeconds: 60, endSpeedMetersPerSecond: 25, grade: -0.1, road: .highway),
        MotionSegment(durationSeconds: 8.5, endSpeedMetersPerSecond: 0),
        MotionSegment(durationSeconds: 30, endSpeedMetersPerSecond: 0),
      ], initialSpeedMetersPerSecond: 25)
    return ScenarioVariant(plan: plan, joltSeconds: [])
  }

  static let n16 = Scenario(
    id: "N16", name: "A passenger handles the phone while driving",
    summary: "Picked up, turned at 3–6 rad/s for 2 s, put back; 15 m/s throughout.", expected: .silent,
    decidingGate: "jolt / stop"
  ) { draws in
    let spin = draws.uniform(3, 6)
    return ScenarioVariant(
      plan: cruise(
        speed: 15,
        events: [
          TimedEvent(
            atSeconds: joltSeconds, event: .phoneHandled(durationSeconds: 2, spinRadiansPerSecond: spin))
        ]), joltSeconds: [joltSeconds], parameters: ["spinRadiansPerSecond": spin])
  }

  static let w1 = Scenario(
    id: "W1", name: "Walking, the phone is dropped",
    summary: "Not in a vehicle (gate off): a 1 m drop onto a pavement.",
    expected: .silent, decidingGate: "vehicle gate"
  ) { _ in
    var plan = cruise(
      speed: 1.4,
      events: [
        TimedEvent(
          atSeconds: joltSeconds - 0.45, event: .phoneDrop(heightMeters: 1, spinRadiansPerSecond: 10))
      ],
      placement: .pocket)
    plan.vehicleGate = false
    return ScenarioVariant(plan: plan, joltSeconds: [joltSeconds])
  }

  // MARK: Recorded motion

  /// A 60 km/h drive with the phone on the seat and the recorded drop
  /// landing at the catalogue's jolt time (40 s). The car keeps going, so
  /// the detector must stay silent ("stop" decides, as for N9).
  public static func realPhoneDrop(_ motion: RecordedMotion) -> Scenario {
    Scenario(
      id: "R1", name: "Real phone drop injected into a 60 km/h drive",
      summary:
        "The accelerometer of \(motion.source) (free fall, impact, rest) replaces the phone's readings.",
      expected: .silent, decidingGate: "stop"
    ) { _ in
      let at = joltSeconds - Double(motion.impactIndex) * 0.02
      let plan = cruise(
        speed: 16.7, events: [TimedEvent(atSeconds: at, event: .recorded(motion))], placement: .seat)
      return ScenarioVariant(plan: plan, joltSeconds: [joltSeconds], parameters: ["impactG": motion.peakG])
    }
  }
}

extension RecordedMotion {
  /// The largest reading, g.
  public var peakG: Double {
    let i = impactIndex
    return (x[i] * x[i] + y[i] * y[i] + z[i] * z[i]).squareRoot() / Quantity.standardGravity
  }
}
