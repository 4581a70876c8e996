import HearthGeo
import HearthTrace

/// Sensor data as a phone hands it over: a batch of samples every ~250 ms.
public struct SensorBatch: Sendable, Hashable {
  /// When the batch reached the app, seconds since the drive's start.
  public var deliveredAtSeconds: Double
  /// Total specific force (gravity included), phone frame, m/s², clipped at ±16 g.
  public var accelerometer = VectorStream()
  /// Angular rate, phone frame, rad/s, clipped at ±34.9 rad/s.
  public var gyroscope = VectorStream()
  /// Cabin pressure, hPa.
  public var barometer = PressureStream()
  /// GPS fixes that arrived in this batch (about 0.9 s after they were taken).
  public var fixes = FixColumns()
  /// Whether the OS said "in a vehicle" at delivery.
  public var vehicleGate: Bool
}

/// Simulates a drive sample by sample, streaming ~250 ms batches: the car
/// follows a `DrivePlan`, the phone (random orientation per `Placement`)
/// reads its motion through road vibration and the plan's events.
///
/// Sensor model (impact-physics.md §5.1): accelerometer 50 Hz with 3 mg
/// noise, clipped at ±16 g per axis; gyroscope 10 Hz, 0.01 rad/s noise,
/// clipped at ±34.9 rad/s; barometer 5 Hz, 0.02 hPa noise, −0.12 hPa per metre
/// climbed; GPS 1 Hz, 0.3 m/s speed noise, 3–6 m accuracy, ~0.9 s latency.
/// Timestamps jitter by ~0.3 ms; batches arrive every 250 ± 30 ms.
///
/// Deterministic: the same plan and seed give the same batches on every
/// platform (no libm; see `SimMath`). Memory is constant however long the
/// drive: nothing is kept once a batch is returned.
/// - Complexity: O(1) per 20 ms step (about 0.2 µs measured; see hearth-bench).
public struct DriveSimulator: Sendable {
  public let plan: DrivePlan
  private var noise: Gaussian
  private let sampleRateHz = 50.0
  private let dt = 0.02
  private let g = Quantity.standardGravity
  private static let accelerometerClip = 16 * Quantity.standardGravity
  private static let gyroscopeClip = 34.9

  // Car state.
  private var step = 0
  private var speed: Double
  private var heading = 0.0
  private var east = 0.0
  private var north = 0.0
  private var altitude = 0.0
  private var roll = 0.0
  private var segmentIndex = 0
  private var segmentStart = 0.0
  private var segmentStartSpeed: Double
  private var yawJitter = 0.0
  private var stalled = false

  // Phone state: rotation from the phone frame to the car frame.
  private var phone: Rotation
  private var tumble = (0.0, 0.0, 0.0)

  // Vibration: three bands per axis (wheel hop ~11 Hz, body heave 1.75 Hz,
  // broadband ~5 Hz) holding 60 / 25 / 15 % of the energy.
  private var bands: [Resonator]
  // Road roughness changes along the road: a slow (5 s) log-normal factor
  // on the level with unit mean square (calibrated against comma2k19's spread).
  private var roughness = 0.0

  // Event bookkeeping: per event, a random direction and whatever it drew.
  private var eventDirections: [(Double, Double, Double)]
  private var eventMagnitudes: [Double]

  // Delivery.
  private var batch: SensorBatch
  private var nextDelivery: Double
  private var pendingFixes: [(deliverAt: Double, fix: Fix)] = []
  private var finished = false

  public init(plan: DrivePlan, seed: UInt64) {
    self.plan = plan
    noise = Gaussian(seed: seed)
    speed = plan.initialSpeedMetersPerSecond
    segmentStartSpeed = plan.initialSpeedMetersPerSecond
    phone = Self.orientation(for: plan.placement, &noise)
    bands = []
    for _ in 0..<3 {
      bands.append(Resonator(frequencyHz: 11, q: 3, sampleRateHz: 50))
      bands.append(Resonator(frequencyHz: 1.75, q: 2, sampleRateHz: 50))
      bands.append(Resonator(frequencyHz: 5, q: 0.7, sampleRateHz: 50))
    }
    eventDirections = []
    eventMagnitudes = []
    for _ in plan.events {
      let v = (noise.next(), noise.next(), noise.next())
      let n = (v.0 * v.0 + v.1 * v.1 + v.2 * v.2).squareRoot()
      eventDirections.append((v.0 / n, v.1 / n, v.2 / n))
      eventMagnitudes.append(noise.uniform(0, 1))
    }
    nextDelivery = 0.25 + noise.uniform(-0.03, 0.03)
    batch = SensorBatch(deliveredAtSeconds: 0, vehicleGate: plan.vehicleGate)
  }

  /// A random orientation suited to the placement: upright in a mount or
  /// cupholder (screen towards the cabin, random yaw), flat on a seat, any
  /// way in a pocket.
  static func orientation(for placement: Placement, _ noise: inout Gaussian) -> Rotation {
    switch placement {
    case .mounted, .cupholder:
      // Phone y axis up (portrait), facing backwards, tilted up to ±20°.
      let base = Rotation(m: [0, 0, -1, -1, 0, 0, 0, 1, 0])
      let tilt = Rotation.axisAngle(1, 0, 0, noise.uniform(-0.35, 0.35))
      let yaw = Rotation.axisAngle(0, 0, 1, noise.uniform(-0.5, 0.5))
      return yaw.then(base).then(tilt)
    case .seat:
      let flip = noise.chance(0.5) ? Rotation.axisAngle(1, 0, 0, SimMath.pi) : .identity
      return Rotation.axisAngle(0, 0, 1, noise.uniform(0, 2 * SimMath.pi)).then(flip)
    case .pocket:
      return Rotation.random(&noise)
    }
  }

  /// Runs the whole plan and returns every batch and the assembled trace.
  public static func record(plan: DrivePlan, seed: UInt64) -> (trace: Trace, batches: [SensorBatch]) {
    var simulator = DriveSimulator(plan: plan, seed: seed)
    var batches: [SensorBatch] = []
    var trace = Trace(
      metadata: TraceMetadata(
        device: "HearthSim phone (\(plan.placement.rawValue))", platform: .unknown,
        timeOriginMilliseconds: plan.startEpochMilliseconds, format: "hearth-sim"))
    var accelerometer = VectorStream()
    var gyroscope = VectorStream()
    var barometer = PressureStream()
    while let next = simulator.nextBatch() {
      batches.append(next)
      accelerometer.seconds += next.accelerometer.seconds
      accelerometer.x += next.accelerometer.x
      accelerometer.y += next.accelerometer.y
      accelerometer.z += next.accelerometer.z
      gyroscope.seconds += next.gyroscope.seconds
      gyroscope.x += next.gyroscope.x
      gyroscope.y += next.gyroscope.y
      gyroscope.z += next.gyroscope.z
      barometer.seconds += next.barometer.seconds
      barometer.hectopascals += next.barometer.hectopascals
      barometer.relativeAltitudeMeters += next.barometer.relativeAltitudeMeters
      trace.fixes.append(contentsOf: next.fixes)
    }
    trace.accelerometer = AccelerationStream(samples: accelerometer, content: .includesGravity)
    trace.gyroscope = gyroscope
    trace.barometer = barometer
    // The phone's classifier, as a recording keeps it: what the vehicle gate
    // followed, so a replay of the trace sets the gate as the phone had it.
    trace.activities = [ActivitySample(seconds: 0, activity: plan.vehicleGate ? .automotive : .walking)]
    return (trace, batches)
  }

  /// The next batch, or nil when the plan is over.
  public mutating func nextBatch() -> SensorBatch? {
    guard !finished else { return nil }
    let duration = plan.durationSeconds
    while true {
      let t = Double(step) * dt
      if t >= duration {
        finished = true
        // The last batch goes out on schedule with whatever GPS is pending.
        flushFixes(upTo: .infinity)
        batch.deliveredAtSeconds = nextDelivery
        return batch.accelerometer.isEmpty && batch.fixes.isEmpty ? nil : batch
      }
      if t >= nextDelivery {
        flushFixes(upTo: nextDelivery)
        var out = batch
        out.deliveredAtSeconds = nextDelivery
        out.vehicleGate = plan.vehicleGate
        batch = SensorBatch(deliveredAtSeconds: 0, vehicleGate: plan.vehicleGate)
        nextDelivery += 0.25 + noise.uniform(-0.03, 0.03)
        return out
      }
      advance(t)
      step += 1
    }
  }

  private mutating func flushFixes(upTo time: Double) {
    while let first = pendingFixes.first, first.deliverAt <= time {
      batch.fixes.append(first.fix)
      pendingFixes.removeFirst()
    }
  }

  // MARK: One 20 ms step

  /// One 20 ms step at time `t`: the car moves along the plan, the road
  /// shakes it, the events act on car and phone, and the phone samples what
  /// it feels. The order of the noise draws is part of the output (committed
  /// samples regenerate byte for byte): keep it.
  private mutating func advance(_ t: Double) {
    let (acceleration, yawRate, moving, segment) = moveAlongPlan(t)
    // Car-frame specific force (x forward, y left, z up) and angular rate.
    var force = (acceleration, speed * yawRate, g)
    var rate = (0.0, 0.0, yawRate)
    let vibration = roadVibration(segment, moving: moving)
    force.0 += vibration.0
    force.1 += vibration.1
    force.2 += vibration.2
    let effects = applyEvents(t, kinematic: acceleration, force: &force, rate: &rate)
    if roll != 0 {
      // Rolled car: gravity rotates in the car frame.
      let c = SimMath.cos(roll)
      let s = SimMath.sin(roll)
      let gravityPart = (0.0, g * s, g * c)
      force = (force.0, force.1 + gravityPart.1, force.2 - g + gravityPart.2)
    }
    samplePhone(t, force: force, rate: rate, effects)
    if step % 50 == 0 && plan.gpsAvailable && !plan.gpsGaps.contains(where: { $0.contains(t) }) {
      recordFix(t, moving: moving)
    }
  }

  /// Speed, heading and position from the plan's segments at `t`; returns the
  /// longitudinal acceleration (m/s²), yaw rate (rad/s), whether the car is
  /// moving, and the segment it is in.
  private mutating func moveAlongPlan(_ t: Double) -> (Double, Double, Bool, MotionSegment) {
    while segmentIndex < plan.segments.count
      && t >= segmentStart + plan.segments[segmentIndex].durationSeconds
    {
      segmentStart += plan.segments[segmentIndex].durationSeconds
      segmentStartSpeed = plan.segments[segmentIndex].endSpeedMetersPerSecond
      segmentIndex += 1
    }
    let segment = plan.segments[min(segmentIndex, plan.segments.count - 1)]
    let fraction = segment.durationSeconds > 0 ? (t - segmentStart) / segment.durationSeconds : 1
    let targetSpeed =
      segmentStartSpeed + (segment.endSpeedMetersPerSecond - segmentStartSpeed) * min(1, fraction)
    let acceleration = (targetSpeed - speed) / dt
    speed = max(0, targetSpeed)
    yawJitter = 0.98 * yawJitter + 0.02 * noise.next() * 0.4
    let moving = speed > 0.5
    let yawRate = moving ? segment.yawRateRadiansPerSecond + yawJitter * min(1, speed / 10) : 0
    heading += yawRate * dt
    east += speed * SimMath.sin(heading) * dt
    north += speed * SimMath.cos(heading) * dt
    altitude += speed * segment.grade * dt
    return (acceleration, yawRate, moving, segment)
  }

  /// The road's vibration at the phone's mount this step, car frame, m/s²:
  /// three resonant bands per axis scaled by the road, the speed and a slowly
  /// wandering roughness.
  private mutating func roadVibration(_ segment: MotionSegment, moving: Bool) -> (Double, Double, Double) {
    roughness = 0.996 * roughness + 0.0894 * noise.next()  // AR(1), τ = 5 s, unit variance
    let level =
      SimMath.exp(0.4 * roughness - 0.16)
      * (moving
        ? segment.road.vibrationRMS * min(1, speed / 8)
        : (stalled ? 0.02 : 0.04)) * plan.placement.vibrationGain
    var vibration = [0.0, 0.0, 0.0]
    for axis in 0..<3 {
      let hop = bands[3 * axis].step(noise.next())
      let heave = bands[3 * axis + 1].step(noise.next())
      let broad = bands[3 * axis + 2].step(noise.next())
      vibration[axis] = level * (0.7746 * hop + 0.5 * heave + 0.3873 * broad) * (axis == 2 ? 1 : 0.6)
    }
    return (vibration[0], vibration[1], vibration[2])

  }

  /// What the plan's events do to the phone this step beyond the car's force.
  private struct EventEffects {
    /// The phone's reading replaced outright (a loose phone's own impact), m/s².
    var phoneOverride: (Double, Double, Double)?
    /// The phone's own rotation (tumbling, handling), rad/s.
    var phoneSpin = (0.0, 0.0, 0.0)
    /// Cabin pressure above ambient, hPa.
    var pressure = 0.0
  }

  /// Applies every event active at `t` to the car's force and rate and
  /// returns its effects on the phone.
  private mutating func applyEvents(
    _ t: Double, kinematic acceleration: Double, force: inout (Double, Double, Double),
    rate: inout (Double, Double, Double)
  ) -> EventEffects {
    var phoneOverride: (Double, Double, Double)?
    var phoneSpin = (0.0, 0.0, 0.0)
    var pressure = 0.0
    for (index, timed) in plan.events.enumerated() {
      let since = t - timed.atSeconds
      guard since > -1, since < 60 else { continue }
      let direction = eventDirections[index]
      switch timed.event {
      case .crash(let crash):
        applyCrash(
          crash, since: since, kinematic: acceleration, force: &force, rate: &rate, pressure: &pressure,
          phoneOverride: &phoneOverride, phoneSpin: &phoneSpin, direction: direction)
      case .pothole(let peakG, let looseRattle):
        if looseRattle {
          if isSample(since, at: 0) { phoneOverride = scale(direction, 9 * g) }
          if isSample(since, at: 0.06) { phoneOverride = scale(direction, -6 * g) }
          if since >= 0 && since < 0.3 { phoneSpin = scale(direction, 4) }
        } else if since >= -dt / 2 && since < 0.5 {
          if isSample(since, at: 0) {
            force.2 -= 0.8 * g
          } else if isSample(since, at: dt) {
            force.2 += peakG * g
          } else {
            force.2 += 0.4 * peakG * g * SimMath.sin(2 * SimMath.pi * 12 * since) * SimMath.exp(-since / 0.1)
          }
        }
      case .speedBump(let peakG):
        for axleDelay in [0.0, 0.33] where since >= axleDelay && since < axleDelay + 0.08 {
          force.2 += peakG * g * SimMath.sin(SimMath.pi * (since - axleDelay) / 0.08)
        }
        if since >= 0 && since < 1.5 {
          force.2 += 0.25 * g * SimMath.sin(2 * SimMath.pi * 1.75 * since) * SimMath.exp(-since / 0.5)
          rate.1 += 0.15 * SimMath.sin(2 * SimMath.pi * 1.75 * since) * SimMath.exp(-since / 0.5)
        }
      case .doorSlam(let hPa, let phoneInDoor):
        if since >= 0 && since < 0.2 { pressure += hPa }
        if phoneInDoor {
          if isSample(since, at: 0) { phoneOverride = scale(direction, 20 * g) }
          if since >= 0 && since < 0.2 { phoneSpin = scale(direction, 2) }
        }
      case .phoneDrop(let height, let spin):
        let fall = (2 * height / g).squareRoot()
        if since >= 0 && since < fall - dt / 2 {
          phoneOverride = scale(direction, 0.05 * g * eventMagnitudes[index])
          phoneSpin = scale(direction, spin)
        } else if isSample(since, at: fall) {
          phoneOverride = scale(direction, 30 * g)
          phone = Self.orientation(for: .seat, &noise)  // resting on the floor
        }
      case .loadShift(let peakG):
        if since >= 0 && since < 0.03 { force.0 += peakG * g * SimMath.sin(SimMath.pi * since / 0.03) }
      case .phoneHandled(let duration, let spin):
        if since >= 0 && since < duration {
          phoneSpin = scale(direction, spin * SimMath.sin(SimMath.pi * since / duration))
          force.0 += 0.3 * g * SimMath.sin(7 * since)
          force.1 += 0.3 * g * SimMath.cos(5 * since)
        }
        if since >= duration && since < duration + dt {
          phone = Self.orientation(for: plan.placement, &noise)
        }
      case .recorded(let motion):
        let k = Int((since / dt).rounded())
        if k >= 0 && k < motion.count {
          phoneOverride = (motion.x[k], motion.y[k], motion.z[k])
        } else if k == motion.count {
          phone = Self.orientation(for: .seat, &noise)
        }
      case .pressureStep(let hPa, let ramp, let duration):
        if since >= 0 && since < duration { pressure += hPa * min(1, since / max(ramp, dt)) }
      }
    }
    return EventEffects(phoneOverride: phoneOverride, phoneSpin: phoneSpin, pressure: pressure)
  }

  /// The phone's accelerometer (every step), gyroscope (every 5th) and
  /// barometer (every 10th) readings: into the phone's frame, with sensor
  /// noise and clipping; a tumble turns the phone.
  private mutating func samplePhone(
    _ t: Double, force: (Double, Double, Double), rate: (Double, Double, Double), _ effects: EventEffects
  ) {
    let phoneOverride = effects.phoneOverride
    let phoneSpin = effects.phoneSpin
    let pressure = effects.pressure
    var a = phoneOverride ?? phone.intoFrame(force)
    a = (
      clip(a.0 + 0.0294 * noise.next(), Self.accelerometerClip),
      clip(a.1 + 0.0294 * noise.next(), Self.accelerometerClip),
      clip(a.2 + 0.0294 * noise.next(), Self.accelerometerClip)
    )
    let jitter = 0.0003 * noise.next()
    batch.accelerometer.append(seconds: t + jitter, x: a.0, y: a.1, z: a.2)
    if phoneSpin != (0, 0, 0) {
      // Integrate the tumble into the phone's orientation.
      let magnitude = (phoneSpin.0 * phoneSpin.0 + phoneSpin.1 * phoneSpin.1 + phoneSpin.2 * phoneSpin.2)
        .squareRoot()
      if magnitude > 0 {
        phone = phone.then(
          Rotation.axisAngle(
            phoneSpin.0 / magnitude, phoneSpin.1 / magnitude, phoneSpin.2 / magnitude, magnitude * dt))
      }
    }
    if step % 5 == 0 {
      let w = phone.intoFrame(rate)
      batch.gyroscope.append(
        seconds: t + 0.0003 * noise.next(),
        x: clip(w.0 + phoneSpin.0 + 0.01 * noise.next(), Self.gyroscopeClip),
        y: clip(w.1 + phoneSpin.1 + 0.01 * noise.next(), Self.gyroscopeClip),
        z: clip(w.2 + phoneSpin.2 + 0.01 * noise.next(), Self.gyroscopeClip))
    }
    if step % 10 == 0 {
      batch.barometer.seconds.append(t + 0.0003 * noise.next())
      batch.barometer.hectopascals.append(1013.25 - 0.12 * altitude + pressure + 0.02 * noise.next())
      batch.barometer.relativeAltitudeMeters.append(altitude)
    }
  }

  /// One GPS fix (every 50th step), delivered 0.8–1 s later.
  private mutating func recordFix(_ t: Double, moving: Bool) {
    let metersPerDegree = GreatCircle.earthMeanRadiusMeters * SimMath.pi / 180
    let latitude = plan.start.latitudeDegrees + north / metersPerDegree
    let longitude =
      plan.start.longitudeDegrees + east
      / (metersPerDegree * SimMath.cos(plan.start.latitudeDegrees * SimMath.pi / 180))
    let accuracy = noise.uniform(3, 6)
    let measured = moving ? max(0, speed + 0.3 * noise.next()) : abs(0.1 * noise.next())
    var headingDegrees = heading * 180 / SimMath.pi
    headingDegrees -= 360 * (headingDegrees / 360).rounded(.down)
    let fix = Fix(
      timeMilliseconds: plan.startEpochMilliseconds + Int64((t * 1000).rounded()),
      latitudeDegrees: latitude + accuracy * 0.3 * noise.next() / metersPerDegree,
      longitudeDegrees: longitude, horizontalAccuracyMeters: accuracy, speedMetersPerSecond: measured,
      headingDegrees: moving ? headingDegrees : nil, altitudeMeters: altitude,
      activity: plan.vehicleGate ? .automotive : .walking)
    pendingFixes.append((t + noise.uniform(0.8, 1.0), fix))
  }

  private mutating func applyCrash(
    _ crash: Crash, since: Double, kinematic: Double, force: inout (Double, Double, Double),
    rate: inout (Double, Double, Double),
    pressure: inout Double, phoneOverride: inout (Double, Double, Double)?,
    phoneSpin: inout (Double, Double, Double),
    direction: (Double, Double, Double)
  ) {
    let pulseLength = crash.pulseSeconds
    let peak = crash.peakAcceleration
    if since >= 0 && since < pulseLength {
      // The pulse is the car's whole longitudinal acceleration while it
      // lasts (the plan's linear speed ramp over the pulse is replaced).
      // ΔV is signed: speed lost is positive (frontal), gained negative (rear).
      force.0 -= kinematic
      let pulse = peak * SimMath.sin(SimMath.pi * since / pulseLength)
      switch crash.kind {
      case .frontal, .rear: force.0 -= pulse
      case .side: force.1 += pulse
      case .rollover: force.1 += 6 * g * SimMath.sin(SimMath.pi * since / 0.08) * (since < 0.08 ? 1 : 0)
      }
    }
    if since >= 0 { stalled = stalled || plan.stallAfterCrash }
    switch crash.kind {
    case .side where since >= 0.1 && since < 2.5:
      rate.2 += crash.spinRadiansPerSecond * SimMath.exp(-(since - 0.1) / 0.6)
    case .rollover where since >= 0 && since < 2.5:
      rate.0 += crash.spinRadiansPerSecond
      roll += crash.spinRadiansPerSecond * dt
      for impact in [0.7, 1.4, 2.1] where since >= impact && since < impact + 0.03 {
        force.2 += 12 * g * SimMath.sin(SimMath.pi * (since - impact) / 0.03)
      }
    default: break
    }
    if since >= 0 && since < 0.3 && crash.mountWhipRadiansPerSecond > 0 && !crash.loosePhone {
      rate.1 += crash.mountWhipRadiansPerSecond * SimMath.sin(SimMath.pi * since / 0.3)
    }
    let airbagTime = since - crash.airbagDelaySeconds
    if crash.airbagHPa > 0 && airbagTime >= 0 {
      pressure += crash.airbagHPa * SimMath.exp(-airbagTime / crash.airbagDecaySeconds)
    }
    if crash.loosePhone {
      // Slides (friction-limited ~0.4 g) during the pulse, flies 0.15 s
      // (reads ~0 g, tumbling), then hits the dash: one clipped sample.
      if since >= 0 && since < pulseLength {
        let slide = scale(direction, 0.4 * g)
        phoneOverride = (slide.0, slide.1, g + slide.2)
      } else if since >= pulseLength && since < pulseLength + 0.15 - dt / 2 {
        phoneOverride = scale(direction, 0.05 * g)
        phoneSpin = scale(direction, 10)
      } else if isSample(since, at: pulseLength + 0.15) {
        phoneOverride = scale(direction, 40 * g)
      } else if since >= pulseLength + 0.15 + dt / 2 && since < pulseLength + 0.65 {
        phoneSpin = scale(direction, 10 * SimMath.exp(-(since - pulseLength - 0.15) / 0.15))
      }
    }
  }

  /// Whether the step `since` seconds after an event is the one sample
  /// nearest `offset`: exactly one step matches, whatever the rounding.
  @inline(__always)
  private func isSample(_ since: Double, at offset: Double) -> Bool {
    since >= offset - dt / 2 && since < offset + dt / 2
  }

  @inline(__always)
  private func scale(_ v: (Double, Double, Double), _ k: Double) -> (Double, Double, Double) {
    (v.0 * k, v.1 * k, v.2 * k)
  }

  @inline(__always)
  private func clip(_ x: Double, _ limit: Double) -> Double { x > limit ? limit : (x < -limit ? -limit : x) }
}
